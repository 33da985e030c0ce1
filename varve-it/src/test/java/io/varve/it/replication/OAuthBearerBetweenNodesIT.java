package io.varve.it.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import io.varve.it.security.TestIdentityProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three combined nodes whose inter-broker and controller listeners are SASL_PLAINTEXT with OAUTHBEARER, configured
 * as a Kafka {@code server.properties} does it: each node gets its token from an identity provider's token endpoint
 * (client-credentials grant, {@code OAuthBearerLoginCallbackHandler}, on loopback here) and the listeners validate it
 * against the provider's JWKS. Tokens live 8 seconds and sessions 3 ({@code connections.max.reauth.ms}), so over
 * half a minute of {@code acks=all} produce every node fetches new tokens before the old ones expire and its
 * connections (replica fetches, Raft, the controller channel) log in again with them (KIP-368), without a refused
 * login and without leaving the ISR.
 */
class OAuthBearerBetweenNodesIT {
    private static final Duration BOUND = ReplicatedTopic.BOUND;
    private static final String VALIDATOR =
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";
    private static final String LOGIN = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler";
    private static final String JAAS = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
            + " clientId=\"broker\" clientSecret=\"broker-secret\" scope=\"kafka\";";
    private static final long TOKEN_LIFETIME_SECONDS = 8;

    private TestIdentityProvider idp;
    private ClusterProcesses cluster;
    private AckLedger ledger;

    @AfterEach
    void stop() {
        if (ledger != null) {
            ledger.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        if (idp != null) {
            idp.close();
        }
    }

    /** Three combined nodes logging in to each other and to the controllers with OAUTHBEARER tokens of {@link #idp}. */
    private ClusterProcesses.Builder oauthCluster() {
        ClusterProcesses.Builder builder = ClusterProcesses.combined(3)
                .extraListener("SASL_PLAINTEXT")
                .secureInternalListeners("SASL_PLAINTEXT", "SASL_PLAINTEXT")
                .override("broker.heartbeat.interval.ms", "500")
                .override("broker.session.timeout.ms", "3000")
                .override("min.insync.replicas", "2")
                .override("sasl.enabled.mechanisms", "OAUTHBEARER")
                .override("sasl.mechanism.inter.broker.protocol", "OAUTHBEARER")
                .override("sasl.mechanism.controller.protocol", "OAUTHBEARER")
                .override("sasl.oauthbearer.token.endpoint.url", idp.url("/token"))
                .override("sasl.oauthbearer.jwks.endpoint.url", idp.url("/jwks"))
                .override("sasl.oauthbearer.expected.audience", TestIdentityProvider.AUDIENCE)
                .override("sasl.oauthbearer.expected.issuer", TestIdentityProvider.ISSUER)
                .override("sasl.oauthbearer.clock.skew.seconds", "0")
                .override("connections.max.reauth.ms", "3000");
        for (String listener : new String[] {"sasl_plaintext", "controller"}) {
            String prefix = "listener.name." + listener + ".oauthbearer.";
            builder.override(prefix + "sasl.server.callback.handler.class", VALIDATOR)
                    .override(prefix + "sasl.login.callback.handler.class", LOGIN)
                    .override(prefix + "sasl.jaas.config", JAAS);
        }
        return builder;
    }

    @Test
    void nodesLogInToEachOtherWithRefreshedTokensAndKeepReplicatingPastTheirExpiry() throws Exception {
        idp = new TestIdentityProvider();
        idp.client("broker", TestIdentityProvider.Kind.RS256);
        idp.lifetimeSeconds(TOKEN_LIFETIME_SECONDS);
        Path workDir = ClusterProcesses.workDir("OAuthBearerBetweenNodesIT");
        cluster = oauthCluster().start(workDir);

        ReplicatedTopic topic =
                ReplicatedTopic.create(cluster, "oauth-between-nodes", 1, Map.of("min.insync.replicas", "2"));
        topic.awaitIsrWhole();
        ledger = AckLedger.start(topic.bootstrap(), topic.name(), 1);
        awaitProgress("with the nodes' first tokens");
        int tokensAtStart = idp.tokensIssued();
        long startNanos = System.nanoTime();
        // each node holds one token per listener it logs in to (inter-broker, controller): 6 tokens, renewed at
        // about 80 % of their 8 s; wait for three generations of renewals
        await("every node renews its tokens three times")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(500))
                .until(() -> idp.tokensIssued() >= tokensAtStart + 18
                        && System.nanoTime() - startNanos
                                > Duration.ofSeconds(3 * TOKEN_LIFETIME_SECONDS).toNanos());
        awaitProgress("after every node's first tokens expired");
        topic.awaitIsrWhole();
        ledger.stop(Duration.ofMinutes(1));
        assertThat(ledger.verify(topic.bootstrap(), BOUND)).isGreaterThanOrEqualTo(ledger.acknowledged());
        for (ClusterNode node : cluster.nodes()) {
            String log = node.logTail(1_000_000);
            assertThat(log).contains("Got an OAUTHBEARER token for the connections to listener SASL_PLAINTEXT");
            assertThat(log).doesNotContain("Cannot log in to the node at ").doesNotContain("Cannot get an OAUTHBEARER");
        }
    }

    /**
     * A node whose client id the identity provider refuses (401) gets no token: its replica fetches cannot log in, so
     * it leaves the ISR while the other two keep acknowledging, and it says why once, without its secret.
     */
    @Test
    void aNodeTheIdentityProviderRefusesStaysOutOfTheIsrAndSaysWhyOnce() throws Exception {
        idp = new TestIdentityProvider();
        idp.client("broker", TestIdentityProvider.Kind.RS256);
        Path workDir = ClusterProcesses.workDir("OAuthBearerRefusedNodeIT");
        cluster = oauthCluster()
                .override("replica.lag.time.max.ms", "5000")
                .overrideFor(
                        3,
                        "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                        JAAS.replace("clientId=\"broker\"", "clientId=\"intruder\""))
                .start(workDir);
        ReplicatedTopic topic = ReplicatedTopic.existing(cluster, "oauth-refused", 1);
        await("topic oauth-refused created on replicas 1, 2, 3")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .ignoreExceptions()
                .until(() -> {
                    try {
                        topic.admin()
                                .createTopics(java.util.List.of(new org.apache.kafka.clients.admin.NewTopic(
                                                "oauth-refused", Map.of(0, java.util.List.of(1, 2, 3)))
                                        .configs(Map.of("min.insync.replicas", "2"))))
                                .all()
                                .get(10, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException e) {
                        if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                            throw e;
                        }
                    }
                    return true;
                });
        await("node 3, which has no token, leaves the ISR")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .ignoreExceptions()
                .until(() -> topic.partition(0).isr().stream()
                        .map(n -> n.id())
                        .sorted()
                        .toList()
                        .equals(java.util.List.of(1, 2)));
        ledger = AckLedger.start(topic.bootstrap(), topic.name(), 1);
        awaitProgress("with node 3 out of the ISR");
        String log = cluster.node(3).logTail(1_000_000);
        assertThat(log)
                .contains("Cannot get an OAUTHBEARER token for the connections to listener SASL_PLAINTEXT")
                .contains("HTTP status 401")
                .doesNotContain("broker-secret");
        assertThat(log.lines()
                        .filter(l -> l.contains("Cannot get an OAUTHBEARER token"))
                        .count())
                .as(log)
                .isEqualTo(1);
        ledger.stop(Duration.ofMinutes(1));
        assertThat(ledger.verify(topic.bootstrap(), BOUND)).isGreaterThanOrEqualTo(ledger.acknowledged());
    }

    private void awaitProgress(String when) {
        long from = ledger.acknowledged();
        await("the producer gets 300 more acknowledgements " + when + " (from " + from + ")")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> ledger.acknowledged() >= from + 300);
    }
}

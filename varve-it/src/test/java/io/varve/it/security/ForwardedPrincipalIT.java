package io.varve.it.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.broker.network.client.ClientSecurity;
import io.varve.broker.network.client.NodeClient;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.PrincipalBytes;
import io.varve.broker.security.SecurityConfig;
import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import io.varve.security.Principal;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.EnvelopeRequestData;
import org.apache.kafka.common.message.EnvelopeResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.VoteRequestData;
import org.apache.kafka.common.message.VoteResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One controller and two broker-only nodes with an authorizer, every internal listener SASL_PLAINTEXT (PLAIN, the
 * brokers log in as the super user {@code User:broker}): a broker forwards a client's CreateTopics to the controller in
 * an Envelope that carries the client's principal, and the controller authorizes it as that client. The client of the
 * PLAINTEXT listener (User:ANONYMOUS) may create topics {@code a-*} only: through a forwarding broker {@code a-1} is
 * created and {@code b-1} refused with TOPIC_AUTHORIZATION_FAILED. Sent straight to the controller as the broker, the
 * same Envelope is refused for ANONYMOUS and honoured for the broker's own principal (so the controller reads the
 * principal inside, not the sender's); an Envelope from a principal without CLUSTER_ACTION is refused whole, and so
 * are Raft's requests on the controller listener.
 */
class ForwardedPrincipalIT {
    private static final Duration BOUND = Duration.ofSeconds(90);

    private static ClusterProcesses cluster;

    @BeforeAll
    static void start() throws Exception {
        Path workDir = ClusterProcesses.workDir("ForwardedPrincipalIT");
        cluster = ClusterProcesses.split(1, 2)
                .extraListener("SASL_PLAINTEXT")
                .secureInternalListeners("SASL_PLAINTEXT", "SASL_PLAINTEXT")
                .override("sasl.enabled.mechanisms", "PLAIN")
                .override("sasl.mechanism.inter.broker.protocol", "PLAIN")
                .override("sasl.mechanism.controller.protocol", "PLAIN")
                .override("listener.name.sasl_plaintext.plain.sasl.jaas.config", jaas("broker", "broker-secret"))
                .override("listener.name.controller.plain.sasl.jaas.config", jaas("broker", "broker-secret"))
                .override("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                .override("super.users", "User:broker")
                .start(workDir);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user + "\" password=\""
                + password + "\" user_broker=\"broker-secret\" user_alice=\"alice-secret\";";
    }

    @Test
    void theControllerAuthorizesAForwardedRequestAsItsClient() throws Exception {
        ClusterNode controller = cluster.controllers().get(0);
        InetSocketAddress controllerAddress = new InetSocketAddress(controller.host(), controller.controllerPort());
        try (NodeClient asBroker = client("broker", "broker-secret");
                NodeClient asAlice = client("alice", "alice-secret")) {
            // the client of the PLAINTEXT listener may create topics a-*: an ACL written straight to the controller
            await("the controller takes an ACL from the super user")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(300))
                    .ignoreExceptions()
                    .until(() -> {
                        CreateAclsResponseData answer = (CreateAclsResponseData) asBroker.send(
                                        controllerAddress, ApiKeys.CREATE_ACLS, (short) 3, anonymousMayCreateA(), 5_000)
                                .get(10, TimeUnit.SECONDS)
                                .body();
                        return answer.results().get(0).errorCode() == Errors.NONE.code();
                    });

            ClusterNode broker = cluster.brokers().get(0);
            Admin admin = cluster.admin(broker);
            await("topic a-1 is created through broker " + broker.id())
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(300))
                    .ignoreExceptions()
                    .until(() -> {
                        admin.createTopics(List.of(new NewTopic("a-1", 1, (short) 2)))
                                .all()
                                .get(10, TimeUnit.SECONDS);
                        return true;
                    });
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("b-1", 1, (short) 2)))
                            .all()
                            .get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(TopicAuthorizationException.class);

            // the controller reads the principal inside the Envelope, not the sender's (a super user)
            assertThat(createInEnvelope(asBroker, controllerAddress, Principal.ANONYMOUS, "b-2"))
                    .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
            assertThat(createInEnvelope(asBroker, controllerAddress, Principal.ANONYMOUS, "a-2"))
                    .isEqualTo(Errors.NONE);
            assertThat(createInEnvelope(asBroker, controllerAddress, Principal.user("broker"), "b-3"))
                    .isEqualTo(Errors.NONE);
            // and takes Envelopes only from a principal with CLUSTER_ACTION
            EnvelopeResponseData fromAlice = (EnvelopeResponseData) asAlice.send(
                            controllerAddress,
                            ApiKeys.ENVELOPE,
                            (short) 0,
                            envelope(Principal.user("broker"), "b-4"),
                            10_000)
                    .get(15, TimeUnit.SECONDS)
                    .body();
            assertThat(fromAlice.errorCode()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
            assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).doesNotContain("b-1", "b-2", "b-4");
        }
    }

    private static NodeClient client(String user, String password) {
        return new NodeClient(
                "forwarded-principal-it",
                "forwarded-principal-it-" + user,
                1 << 20,
                8,
                5_000,
                new ClientSecurity("CONTROLLER", null, new SecurityConfig.OutgoingSasl("PLAIN", user, password)));
    }

    private static CreateAclsRequestData anonymousMayCreateA() {
        CreateAclsRequestData data = new CreateAclsRequestData();
        data.creations()
                .add(new CreateAclsRequestData.AclCreation()
                        .setResourceType(org.apache.kafka.common.resource.ResourceType.TOPIC.code())
                        .setResourceName("a-")
                        .setResourcePatternType(org.apache.kafka.common.resource.PatternType.PREFIXED.code())
                        .setPrincipal("User:ANONYMOUS")
                        .setHost("*")
                        .setOperation(org.apache.kafka.common.acl.AclOperation.CREATE.code())
                        .setPermissionType(org.apache.kafka.common.acl.AclPermissionType.ALLOW.code()));
        return data;
    }

    private static EnvelopeRequestData envelope(Principal principal, String topic) {
        CreateTopicsRequestData create = new CreateTopicsRequestData().setTimeoutMs(10_000);
        create.topics()
                .add(new CreateTopicsRequestData.CreatableTopic()
                        .setName(topic)
                        .setNumPartitions(1)
                        .setReplicationFactor((short) 2));
        return new EnvelopeRequestData()
                .setRequestData(ClientFrames.request(ApiKeys.CREATE_TOPICS, (short) 7, 1, "it-admin", create))
                .setRequestPrincipal(PrincipalBytes.write(principal))
                .setClientHostAddress(new byte[] {127, 0, 0, 1});
    }

    /** The error the controller answers inside the Envelope for CreateTopics of {@code topic} as {@code principal}. */
    private static Errors createInEnvelope(
            NodeClient client, InetSocketAddress controller, Principal principal, String topic) throws Exception {
        EnvelopeResponseData answer = (EnvelopeResponseData)
                client.send(controller, ApiKeys.ENVELOPE, (short) 0, envelope(principal, topic), 15_000)
                        .get(20, TimeUnit.SECONDS)
                        .body();
        assertThat(answer.errorCode()).isEqualTo(Errors.NONE.code());
        CreateTopicsResponseData inner = (CreateTopicsResponseData)
                ClientFrames.response(ApiKeys.CREATE_TOPICS, (short) 7, answer.responseData())
                        .body();
        return Errors.forCode(inner.topics().find(topic).errorCode());
    }
    /**
     * Raft's requests on the controller listener need CLUSTER_ACTION (DescribeQuorum DESCRIBE), as Kafka's controller
     * checks them: alice, logged in but no super user and without ACLs, gets CLUSTER_AUTHORIZATION_FAILED for a Raft
     * fetch, a vote and DescribeQuorum; the nodes' own principal is answered (the brokers keep replicating the
     * metadata log as observers).
     */
    @Test
    void raftRequestsOnTheControllerListenerNeedClusterActionFromTheirPrincipal() throws Exception {
        ClusterNode controller = cluster.controllers().get(0);
        InetSocketAddress controllerAddress = new InetSocketAddress(controller.host(), controller.controllerPort());
        try (NodeClient asBroker = client("broker", "broker-secret");
                NodeClient asAlice = client("alice", "alice-secret")) {
            await("the controller answers the brokers' principal's DescribeQuorum")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(300))
                    .ignoreExceptions()
                    .until(() -> ((DescribeQuorumResponseData) asBroker.send(
                                                    controllerAddress,
                                                    ApiKeys.DESCRIBE_QUORUM,
                                                    (short) 2,
                                                    describeQuorum(),
                                                    5_000)
                                            .get(10, TimeUnit.SECONDS)
                                            .body())
                                    .errorCode()
                            == Errors.NONE.code());
            DescribeQuorumResponseData describe = (DescribeQuorumResponseData)
                    asAlice.send(controllerAddress, ApiKeys.DESCRIBE_QUORUM, (short) 2, describeQuorum(), 5_000)
                            .get(10, TimeUnit.SECONDS)
                            .body();
            assertThat(describe.errorCode()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
            FetchResponseData fetch = (FetchResponseData)
                    asAlice.send(controllerAddress, ApiKeys.FETCH, (short) 13, new FetchRequestData(), 5_000)
                            .get(10, TimeUnit.SECONDS)
                            .body();
            assertThat(fetch.errorCode()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
            VoteResponseData vote = (VoteResponseData)
                    asAlice.send(controllerAddress, ApiKeys.VOTE, (short) 1, new VoteRequestData(), 5_000)
                            .get(10, TimeUnit.SECONDS)
                            .body();
            assertThat(vote.errorCode()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
        }
        assertThat(controller.logTail(1_000_000)).contains("Refused Fetch from").contains("User:alice lacks");
        cluster.awaitBrokers(2, BOUND);
    }

    private static DescribeQuorumRequestData describeQuorum() {
        DescribeQuorumRequestData request = new DescribeQuorumRequestData();
        request.topics()
                .add(new DescribeQuorumRequestData.TopicData()
                        .setTopicName("__cluster_metadata")
                        .setPartitions(List.of(new DescribeQuorumRequestData.PartitionData().setPartitionIndex(0))));
        return request;
    }
}

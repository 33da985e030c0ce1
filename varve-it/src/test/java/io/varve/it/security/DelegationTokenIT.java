package io.varve.it.security;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.it.TestBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateDelegationTokenOptions;
import org.apache.kafka.clients.admin.DescribeDelegationTokenOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.DelegationTokenAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnsupportedByAuthenticationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delegation tokens as Kafka's {@code kafka-delegation-tokens} and kafka-clients use them, over SASL_PLAINTEXT with an
 * authorizer: the tool creates, describes, renews and expires tokens; a producer logs in with SCRAM-SHA-512 and {@code
 * tokenauth=true} as the token's owner and produces; an expired token, or one its owner expired, logs in no more; a
 * token-authenticated connection cannot ask for tokens, nor can a PLAINTEXT one; a token for another owner needs
 * CREATE_TOKENS on that user; DescribeDelegationToken shows a principal only the tokens it may see.
 */
class DelegationTokenIT {
    private static final String PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule";
    private static final String TOPIC = "dt-orders";

    @TempDir
    static Path dir;

    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0");
        props.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512");
        props.put(
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                PLAIN + " required user_alice=\"alice-secret\" user_bob=\"bob-secret\" user_carol=\"carol-secret\";");
        props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        props.put("super.users", "User:ANONYMOUS");
        props.put("connection.failed.authentication.delay.ms", "0");
        props.put("delegation.token.secret.key", "it-secret-key-for-tokens");
        props.put("delegation.token.expiry.check.interval.ms", "500");
        broker = TestBroker.start(dir.resolve("data"), props);
        try (Admin admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            admin.createAcls(List.of(
                            allow(
                                    new ResourcePattern(ResourceType.TOPIC, "dt-", PatternType.PREFIXED),
                                    "User:alice",
                                    AclOperation.WRITE),
                            allow(
                                    new ResourcePattern(ResourceType.USER, "User:alice", PatternType.LITERAL),
                                    "User:carol",
                                    AclOperation.CREATE_TOKENS)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static AclBinding allow(ResourcePattern pattern, String principal, AclOperation operation) {
        return new AclBinding(pattern, new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }

    private static String saslBootstrap() {
        return "127.0.0.1:" + broker.broker().boundPort("SASL_PLAINTEXT");
    }

    private static Map<String, Object> plain(String user) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, saslBootstrap());
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        c.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        c.put(
                SaslConfigs.SASL_JAAS_CONFIG,
                PLAIN + " required username=\"" + user + "\" password=\"" + user + "-secret\";");
        return c;
    }

    /** A client that logs in with a delegation token, as Kafka documents it. */
    private static Map<String, Object> withToken(DelegationToken token) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, saslBootstrap());
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        c.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
        c.put(
                SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                        + token.tokenInfo().tokenId() + "\" password=\"" + token.hmacAsBase64String()
                        + "\" tokenauth=true;");
        return c;
    }

    private static Admin admin(Map<String, Object> config) {
        Properties p = new Properties();
        p.putAll(config);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        return Admin.create(p);
    }

    private static Path commandConfig(String user) throws IOException {
        Path file = dir.resolve(user + ".properties");
        Files.writeString(
                file,
                "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=" + PLAIN
                        + " required username=\"" + user + "\" password=\"" + user + "-secret\";\n");
        return file;
    }

    private static List<DelegationToken> describe(String user) throws Exception {
        try (Admin admin = admin(plain(user))) {
            return admin.describeDelegationToken().delegationTokens().get(20, TimeUnit.SECONDS);
        }
    }

    private static DelegationToken described(String user, String tokenId) throws Exception {
        return describe(user).stream()
                .filter(t -> t.tokenInfo().tokenId().equals(tokenId))
                .findFirst()
                .orElseThrow(() -> new AssertionError(user + " does not see token " + tokenId));
    }

    private static void produce(Map<String, Object> client, int count) throws Exception {
        Map<String, Object> config = new HashMap<>(client);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(config)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(TOPIC, ("v" + i).getBytes(UTF_8)))
                        .get(20, TimeUnit.SECONDS);
            }
        }
    }

    private static void refusedLogin(Map<String, Object> client) {
        try (Admin admin = admin(client)) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(SaslAuthenticationException.class);
        }
    }

    @Test
    void theKafkaToolCreatesDescribesRenewsAndExpiresATokenAProducerAuthenticatesWith() throws Exception {
        String[] alice = {
            "--bootstrap-server",
            saslBootstrap(),
            "--command-config",
            commandConfig("alice").toString()
        };
        ToolRun create = tool(alice, "--create", "--max-life-time-period", "-1", "--renewer-principal", "User:bob");
        assertThat(create.exitCode()).as(create.output()).isZero();
        String tokenId = create.output()
                .lines()
                .filter(l -> l.startsWith("Created delegation token with tokenId : "))
                .map(l -> l.substring("Created delegation token with tokenId : ".length())
                        .trim())
                .findFirst()
                .orElseThrow(() -> new AssertionError(create.output()));
        DelegationToken token = described("alice", tokenId);
        assertThat(token.tokenInfo().owner()).isEqualTo(new KafkaPrincipal("User", "alice"));
        assertThat(token.tokenInfo().renewers()).containsExactly(new KafkaPrincipal("User", "bob"));
        assertThat(create.output()).contains(token.hmacAsBase64String());

        // Kafka 4.4's tool sends an empty owner list without --owner-principal, which Kafka's brokers answer with no
        // tokens (and so does Varve): name the owner
        ToolRun describe = tool(alice, "--describe", "--owner-principal", "User:alice");
        assertThat(describe.exitCode()).as(describe.output()).isZero();
        assertThat(describe.output()).contains(tokenId).contains("User:alice").contains("User:bob");

        // the token's owner, through the token: it may write where alice may
        produce(withToken(token), 5);
        // but it may not ask for another token over that connection, and nobody may over PLAINTEXT
        try (Admin tokenAdmin = admin(withToken(token))) {
            assertThatThrownBy(() ->
                            tokenAdmin.createDelegationToken().delegationToken().get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(UnsupportedByAuthenticationException.class);
        }
        try (Admin plaintext = broker.admin()) {
            assertThatThrownBy(() ->
                            plaintext.createDelegationToken().delegationToken().get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(UnsupportedByAuthenticationException.class);
        }

        // bob renews as a renewer; the tool prints the new expiry
        String[] bob = {
            "--bootstrap-server",
            saslBootstrap(),
            "--command-config",
            commandConfig("bob").toString()
        };
        ToolRun renew = tool(bob, "--renew", "--renew-time-period", "3600000", "--hmac", token.hmacAsBase64String());
        assertThat(renew.exitCode()).as(renew.output()).isZero();
        assertThat(renew.output()).contains("Completed renew operation");
        ToolRun expire = tool(alice, "--expire", "--expiry-time-period", "-1", "--hmac", token.hmacAsBase64String());
        assertThat(expire.exitCode()).as(expire.output()).isZero();
        assertThat(expire.output()).contains("Completed expire operation");
        assertThat(describe("alice")).noneMatch(t -> t.tokenInfo().tokenId().equals(tokenId));
        refusedLogin(withToken(token));
    }

    @Test
    void aTokenPastItsLifetimeNoLongerAuthenticatesAndIsRemoved() throws Exception {
        DelegationToken token;
        try (Admin admin = admin(plain("alice"))) {
            token = admin.createDelegationToken(new CreateDelegationTokenOptions().maxlifeTimeMs(15_000))
                    .delegationToken()
                    .get(20, TimeUnit.SECONDS);
        }
        assertThat(token.tokenInfo().maxTimestamp() - token.tokenInfo().issueTimestamp())
                .isEqualTo(15_000);
        // long enough for a producer to start on a busy machine; its session ends with the token (KIP-368)
        produce(withToken(token), 1);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> describe("alice").stream()
                        .noneMatch(t ->
                                t.tokenInfo().tokenId().equals(token.tokenInfo().tokenId())));
        assertThat(System.currentTimeMillis()).isGreaterThan(token.tokenInfo().maxTimestamp());
        refusedLogin(withToken(token));
    }

    @Test
    void aTokenForAnotherOwnerNeedsCreateTokensOnThatUserAndOthersSeeOnlyWhatTheyMay() throws Exception {
        KafkaPrincipal alice = new KafkaPrincipal("User", "alice");
        try (Admin bob = admin(plain("bob"))) {
            assertThatThrownBy(() -> bob.createDelegationToken(new CreateDelegationTokenOptions().owner(alice))
                            .delegationToken()
                            .get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(DelegationTokenAuthorizationException.class);
        }
        DelegationToken forAlice;
        try (Admin carol = admin(plain("carol"))) {
            forAlice = carol.createDelegationToken(new CreateDelegationTokenOptions().owner(alice))
                    .delegationToken()
                    .get(20, TimeUnit.SECONDS);
        }
        assertThat(forAlice.tokenInfo().owner()).isEqualTo(alice);
        assertThat(forAlice.tokenInfo().tokenRequester()).isEqualTo(new KafkaPrincipal("User", "carol"));
        String id = forAlice.tokenInfo().tokenId();
        // owner and requester see it; bob, neither of them nor allowed to describe it, does not
        assertThat(described("alice", id).hmacAsBase64String()).isEqualTo(forAlice.hmacAsBase64String());
        assertThat(described("carol", id).tokenInfo().owner()).isEqualTo(alice);
        assertThat(describe("bob")).noneMatch(t -> t.tokenInfo().tokenId().equals(id));
        try (Admin bob = admin(plain("bob"))) {
            List<DelegationToken> ofAlice = bob.describeDelegationToken(
                            new DescribeDelegationTokenOptions().owners(List.of(alice)))
                    .delegationTokens()
                    .get(20, TimeUnit.SECONDS);
            assertThat(ofAlice).isEmpty();
        }
        // the owner authenticates with the token even though carol asked for it
        produce(withToken(forAlice), 1);
    }

    record ToolRun(int exitCode, String output) {}

    private static ToolRun tool(String[] common, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "org.apache.kafka.tools.DelegationTokenCommand"));
        command.addAll(List.of(common));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "tool", ".out");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        return new ToolRun(process.isAlive() ? -1 : process.exitValue(), Files.readString(out));
    }

    static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }
}

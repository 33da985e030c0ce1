package io.varve.it.security;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.it.TestBroker;
import io.varve.it.ToolRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.ResourceNotFoundException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnacceptableCredentialException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SCRAM users created at run time (Admin, Kafka's kafka-configs, through the controller into the metadata log) log in
 * with SCRAM-SHA-256 and SCRAM-SHA-512 from kafka-clients and kcat; a wrong password, a deleted credential and
 * unacceptable iterations are refused with Kafka's errors.
 */
class ScramIT {
    private static final Path KCAT = Path.of("/usr/bin/kcat");

    @TempDir
    static Path dir;

    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0");
        props.put("sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512,PLAIN");
        props.put(
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"admin-secret\";");
        props.put("connection.failed.authentication.delay.ms", "0");
        broker = TestBroker.start(dir.resolve("data"), props);
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static String saslBootstrap() {
        return "127.0.0.1:" + broker.broker().boundPort("SASL_PLAINTEXT");
    }

    private static Map<String, Object> scram(String mechanism, String user, String password) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, saslBootstrap());
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        c.put(SaslConfigs.SASL_MECHANISM, mechanism);
        c.put(
                SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                        + password + "\";");
        return c;
    }

    private static Admin admin(Map<String, Object> c) {
        Properties p = new Properties();
        p.putAll(c);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        return Admin.create(p);
    }

    private static void upsert(String user, ScramMechanism mechanism, int iterations, String password)
            throws Exception {
        try (Admin admin = broker.admin()) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            user, new ScramCredentialInfo(mechanism, iterations), password)))
                    .all()
                    .get(20, TimeUnit.SECONDS);
        }
    }

    private static void roundTrip(Map<String, Object> client) throws Exception {
        String topic = uniqueTopic("scram");
        try (Admin admin = admin(client)) {
            createTopic(admin, topic, 1);
        }
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(client)) {
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>(topic, ("v" + i).getBytes(UTF_8)));
            }
            producer.flush();
        }
        Map<String, Object> consumerConfig = new HashMap<>(client);
        consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, topic + "-group");
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(consumerConfig)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (records.size() < 20 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        assertThat(records).hasSize(20);
    }

    private static void refused(Map<String, Object> client, String message) {
        try (Admin admin = admin(client)) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining(message);
        }
    }

    @Test
    void usersCreatedAtRunTimeLogInWithBothScramMechanisms() throws Exception {
        upsert("alice", ScramMechanism.SCRAM_SHA_512, 8192, "alice-secret");
        upsert("alice", ScramMechanism.SCRAM_SHA_256, 4096, "alice-256-secret");
        roundTrip(scram("SCRAM-SHA-512", "alice", "alice-secret"));
        roundTrip(scram("SCRAM-SHA-256", "alice", "alice-256-secret"));
        refused(scram("SCRAM-SHA-512", "alice", "alice-256-secret"), "invalid credentials");
        refused(scram("SCRAM-SHA-256", "nobody", "x"), "Invalid user credentials");
        try (Admin admin = broker.admin()) {
            UserScramCredentialsDescription alice = admin.describeUserScramCredentials(List.of("alice"))
                    .description("alice")
                    .get(20, TimeUnit.SECONDS);
            assertThat(alice.credentialInfos())
                    .containsExactlyInAnyOrder(
                            new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096),
                            new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192));
        }
    }

    @Test
    void aDeletedCredentialNoLongerLogsIn() throws Exception {
        upsert("carol", ScramMechanism.SCRAM_SHA_256, 4096, "carol-secret");
        roundTrip(scram("SCRAM-SHA-256", "carol", "carol-secret"));
        try (Admin admin = broker.admin()) {
            admin.alterUserScramCredentials(
                            List.of(new UserScramCredentialDeletion("carol", ScramMechanism.SCRAM_SHA_256)))
                    .all()
                    .get(20, TimeUnit.SECONDS);
            assertThatThrownBy(() -> admin.alterUserScramCredentials(
                                    List.of(new UserScramCredentialDeletion("carol", ScramMechanism.SCRAM_SHA_256)))
                            .all()
                            .get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ResourceNotFoundException.class);
            assertThatThrownBy(() -> admin.describeUserScramCredentials(List.of("carol"))
                            .description("carol")
                            .get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ResourceNotFoundException.class);
        }
        refused(scram("SCRAM-SHA-256", "carol", "carol-secret"), "Invalid user credentials");
    }

    @Test
    void tooFewIterationsAreRefused() throws Exception {
        try (Admin admin = broker.admin()) {
            assertThatThrownBy(() -> admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                                    "dave", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 1000), "x")))
                            .all()
                            .get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(UnacceptableCredentialException.class);
        }
    }

    @Test
    void kafkaConfigsCreatesAndDescribesScramUsersAndKcatLogsInWithThem() throws Exception {
        Path commandConfig = dir.resolve("admin.properties");
        Files.writeString(
                commandConfig,
                "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config="
                        + "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\""
                        + " password=\"admin-secret\";\n");
        String[] common = {"--bootstrap-server", saslBootstrap(), "--command-config", commandConfig.toString()};
        ToolRun alter = configs(
                common,
                "--alter",
                "--add-config",
                "SCRAM-SHA-512=[password=erin-secret]",
                "--entity-type",
                "users",
                "--entity-name",
                "erin");
        assertThat(alter.exitCode()).as(alter.output()).isZero();
        ToolRun describe = configs(common, "--describe", "--entity-type", "users", "--entity-name", "erin");
        assertThat(describe.exitCode()).as(describe.output()).isZero();
        assertThat(describe.output()).contains("SCRAM-SHA-512=iterations=4096");
        roundTrip(scram("SCRAM-SHA-512", "erin", "erin-secret"));

        Assumptions.assumeTrue(Files.isExecutable(KCAT), "kcat is not installed at " + KCAT);
        Process kcat = new ProcessBuilder(
                        KCAT.toString(),
                        "-b",
                        saslBootstrap(),
                        "-X",
                        "security.protocol=sasl_plaintext",
                        "-X",
                        "sasl.mechanisms=SCRAM-SHA-512",
                        "-X",
                        "sasl.username=erin",
                        "-X",
                        "sasl.password=erin-secret",
                        "-L")
                .redirectErrorStream(true)
                .start();
        String out = new String(kcat.getInputStream().readAllBytes(), UTF_8);
        assertThat(kcat.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(kcat.exitValue()).as(out).isZero();
        assertThat(out).contains("1 brokers:");
    }

    private static ToolRun configs(String[] common, String... args) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of(common));
        all.addAll(List.of(args));
        return ToolRun.run(dir, Duration.ofSeconds(60), "org.apache.kafka.tools.ConfigCommand", all);
    }
}

package io.varve.it.security;

import static io.varve.it.security.SecurityClients.PLAIN_MODULE;
import static io.varve.it.security.SecurityClients.assertRefused;
import static io.varve.it.security.SecurityClients.plain;
import static io.varve.it.security.SecurityClients.roundTrip;
import static io.varve.it.security.SecurityClients.writeProperties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.it.Kcat;
import io.varve.it.TestBroker;
import io.varve.it.ToolRun;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.common.errors.ResourceNotFoundException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnacceptableCredentialException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SCRAM users created at run time (Admin, Kafka's kafka-configs, through the controller into the metadata log) log in
 * with SCRAM-SHA-256 and SCRAM-SHA-512 from kafka-clients and kcat; a wrong password, a deleted credential and
 * unacceptable iterations are refused with Kafka's errors.
 */
class ScramIT {
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
                PLAIN_MODULE + " required user_admin=\"admin-secret\";");
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
        return broker.bootstrap("SASL_PLAINTEXT");
    }

    private static Map<String, Object> scram(String mechanism, String user, String password) {
        return SecurityClients.scram(saslBootstrap(), "SASL_PLAINTEXT", mechanism, user, password);
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

    private static void refused(Map<String, Object> client, String message) {
        assertRefused(client).isInstanceOf(SaslAuthenticationException.class).hasMessageContaining(message);
    }

    @Test
    void usersCreatedAtRunTimeLogInWithBothScramMechanisms() throws Exception {
        upsert("alice", ScramMechanism.SCRAM_SHA_512, 8192, "alice-secret");
        upsert("alice", ScramMechanism.SCRAM_SHA_256, 4096, "alice-256-secret");
        roundTrip(broker, scram("SCRAM-SHA-512", "alice", "alice-secret"), 20, 16);
        roundTrip(broker, scram("SCRAM-SHA-256", "alice", "alice-256-secret"), 20, 16);
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
        roundTrip(broker, scram("SCRAM-SHA-256", "carol", "carol-secret"), 20, 16);
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
        Path commandConfig = writeProperties(
                dir.resolve("admin.properties"), plain(saslBootstrap(), "SASL_PLAINTEXT", "admin", "admin-secret"));
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
        roundTrip(broker, scram("SCRAM-SHA-512", "erin", "erin-secret"), 20, 16);

        Kcat.assumeInstalled();
        Kcat.Result listed = Kcat.run(
                dir,
                null,
                List.of(
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
                        "-L"));
        assertThat(listed.exitCode()).as(listed.stderr()).isZero();
        assertThat(listed.stdout()).contains("1 brokers:");
    }

    private static ToolRun configs(String[] common, String... args) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of(common));
        all.addAll(List.of(args));
        return ToolRun.run(dir, Duration.ofSeconds(60), "org.apache.kafka.tools.ConfigCommand", all);
    }
}

package io.varve.it.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.cli.FormatCommand;
import io.varve.it.TestBroker;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code varve format --feature transaction.version=1}, as Kafka's {@code kafka-storage format --feature}: the new
 * cluster starts at the chosen transaction version, Kafka 4.4's {@code kafka-features describe} shows it with 0-2
 * supported, and {@code kafka-features upgrade/downgrade} move it.
 */
class FormatFeatureIT {
    @TempDir
    Path dir;

    @Test
    void aClusterFormattedWithTransactionVersion1StartsThereAndUpgradesTo2AndDowngradesBack() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("log.dirs", dir.resolve("data").toString());
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        Path config = dir.resolve("server.properties");
        Properties p = new Properties();
        p.putAll(props);
        try (Writer w = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
            p.store(w, null);
        }
        int exit = new CommandLine(new FormatCommand())
                .execute(
                        "--config",
                        config.toString(),
                        "--cluster-id",
                        Uuid.randomUuid().toString(),
                        "--feature",
                        "transaction.version=1");
        assertThat(exit).isZero();

        try (TestBroker broker = TestBroker.start(dir.resolve("data"), props);
                Admin admin = admin(broker.broker().boundPort("PLAINTEXT"))) {
            FeatureMetadata features = describe(admin);
            assertThat(features.supportedFeatures().get("transaction.version").minVersion())
                    .isEqualTo((short) 0);
            assertThat(features.supportedFeatures().get("transaction.version").maxVersion())
                    .isEqualTo((short) 2);
            assertThat(features.finalizedFeatures().get("transaction.version").maxVersionLevel())
                    .isEqualTo((short) 1);

            String bootstrap = "127.0.0.1:" + broker.broker().boundPort("PLAINTEXT");
            ToolRun described = features("--bootstrap-server", bootstrap, "describe");
            assertThat(described.exitCode()).as(described.output()).isZero();
            assertThat(described.output())
                    .containsPattern("Feature: transaction\\.version\\s+SupportedMinVersion: 0\\s+"
                            + "SupportedMaxVersion: 2\\s+FinalizedVersionLevel: 1\\s");

            ToolRun upgraded =
                    features("--bootstrap-server", bootstrap, "upgrade", "--feature", "transaction.version=2");
            assertThat(upgraded.exitCode()).as(upgraded.output()).isZero();
            assertThat(describe(admin)
                            .finalizedFeatures()
                            .get("transaction.version")
                            .maxVersionLevel())
                    .isEqualTo((short) 2);
            ToolRun downgraded =
                    features("--bootstrap-server", bootstrap, "downgrade", "--feature", "transaction.version=1");
            assertThat(downgraded.exitCode()).as(downgraded.output()).isZero();
            assertThat(describe(admin)
                            .finalizedFeatures()
                            .get("transaction.version")
                            .maxVersionLevel())
                    .isEqualTo((short) 1);
        }
    }

    record ToolRun(int exitCode, String output) {}

    /** Kafka 4.4's {@code kafka-features} (FeatureCommand) in its own JVM. */
    private ToolRun features(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "org.apache.kafka.tools.FeatureCommand"));
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

    private static FeatureMetadata describe(Admin admin) throws Exception {
        return admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS);
    }

    private static Admin admin(int port) {
        Properties c = new Properties();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        return Admin.create(c);
    }
}

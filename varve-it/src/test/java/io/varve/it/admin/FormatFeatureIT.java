package io.varve.it.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.cli.FormatCommand;
import io.varve.it.TestBroker;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code varve format --feature transaction.version=1}, as Kafka's {@code kafka-storage format --feature}: the new
 * cluster starts at the chosen transaction version, advertises 0-2 as supported, and {@code kafka-features
 * upgrade/downgrade} (UpdateFeatures) moves it.
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

            update(admin, (short) 2, FeatureUpdate.UpgradeType.UPGRADE);
            assertThat(describe(admin)
                            .finalizedFeatures()
                            .get("transaction.version")
                            .maxVersionLevel())
                    .isEqualTo((short) 2);
            update(admin, (short) 1, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE);
            assertThat(describe(admin)
                            .finalizedFeatures()
                            .get("transaction.version")
                            .maxVersionLevel())
                    .isEqualTo((short) 1);
        }
    }

    private static void update(Admin admin, short level, FeatureUpdate.UpgradeType type) throws Exception {
        admin.updateFeatures(Map.of("transaction.version", new FeatureUpdate(level, type)), new UpdateFeaturesOptions())
                .all()
                .get(30, TimeUnit.SECONDS);
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

package io.varve.broker.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.LogConfig;
import io.varve.tiered.manager.CopyThrottle;
import io.varve.tiered.manager.RemoteLogManagerConfig;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Tiered storage's broker keys: Varve's defaults, the backend's pass-through keys, and the topic keys' mapping. */
class RemoteLogSettingsTest {

    @Test
    void tieringIsOnByDefaultWithTheFilesystemBackendBesideTheFirstLogDir() {
        BrokerConfig config = BrokerConfig.fromMap(Map.of("log.dirs", "/data/varve,/data/other"));

        assertThat(config.remoteLogStorageSystemEnable()).isTrue();
        Map<String, String> storage = RemoteLogSettings.storageConfig(config);
        assertThat(storage)
                .containsEntry("remote.log.storage.manager.class.name", "filesystem")
                .containsEntry(
                        "rsm.config.fs.root.dir", Path.of("/data/varve-remote").toString());
        RemoteLogManagerConfig manager = RemoteLogSettings.managerConfig(config);
        assertThat(manager.copierThreads()).isEqualTo(10);
        assertThat(manager.taskIntervalMs()).isEqualTo(30_000);
        assertThat(manager.copyMaxBytesPerSecond()).isEqualTo(CopyThrottle.UNLIMITED);
        assertThat(manager.pause()).isEmpty();
    }

    @Test
    void aClusterIsWarnedWhenTheFilesystemBackendFallsBackToAPerNodeDirectory() {
        assertThat(RemoteLogSettings.clusterWarning(BrokerConfig.fromMap(Map.of("log.dirs", "/data/varve"))))
                .hasValueSatisfying(w -> assertThat(w).startsWith("rsm.config.fs.root.dir is not set"));
        assertThat(RemoteLogSettings.clusterWarning(
                        BrokerConfig.fromMap(Map.of("rsm.config.fs.root.dir", "/shared/tier"))))
                .isEmpty();
        assertThat(RemoteLogSettings.clusterWarning(BrokerConfig.fromMap(
                        Map.of("remote.log.storage.manager.class.name", "s3", "rsm.config.s3.bucket.name", "b"))))
                .isEmpty();
    }

    @Test
    void backendKeysUnderTheImplPrefixAreNotReportedUnknown() {
        BrokerConfig config = BrokerConfig.fromMap(
                Map.of("rsm.config.s3.bucket.name", "b", "remote.log.manager.copier.thread.pool.size", "2"));

        assertThat(config.unknownKeys()).isEmpty();
        assertThat(RemoteLogSettings.storageConfig(config)).containsEntry("rsm.config.s3.bucket.name", "b");
        assertThat(RemoteLogSettings.managerConfig(config).copierThreads()).isEqualTo(2);
    }

    @Test
    void topicKeysMapToTheLogConfigAndTheSystemSwitchGatesRemoteStorage() {
        Map<String, String> topic = Map.of(
                "remote.storage.enable",
                "true",
                "local.retention.ms",
                "60000",
                "local.retention.bytes",
                "-2",
                "remote.log.copy.disable",
                "true",
                "remote.log.delete.on.disable",
                "true");

        LogConfig on = new LogConfigs(BrokerConfig.fromMap(Map.of())).forTopic(topic);
        assertThat(on.remoteStorageEnable()).isTrue();
        assertThat(on.effectiveLocalRetentionMs()).isEqualTo(60_000);
        assertThat(on.effectiveLocalRetentionBytes()).isEqualTo(on.retentionBytes());
        assertThat(on.remoteLogCopyDisable()).isTrue();
        assertThat(on.remoteLogDeleteOnDisable()).isTrue();

        LogConfig off = new LogConfigs(BrokerConfig.fromMap(Map.of("remote.log.storage.system.enable", "false")))
                .forTopic(topic);
        assertThat(off.remoteStorageEnable()).isFalse();
    }

    @Test
    void brokerLevelLocalRetentionIsTheTopicDefault() {
        LogConfig defaults =
                new LogConfigs(BrokerConfig.fromMap(Map.of("log.local.retention.bytes", "1048576"))).brokerDefaults();
        assertThat(defaults.localRetentionBytes()).isEqualTo(1_048_576);
        assertThat(defaults.localRetentionMs()).isEqualTo(LogConfig.LOCAL_RETENTION_AS_TOTAL);
    }
}

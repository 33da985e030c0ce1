package io.varve.broker.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import io.varve.coordinator.group.share.ShareGroupConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupCoordinatorSettingsTest {
    private static BrokerConfig config(Map<String, String> extra) {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        props.put("log.dirs", "/tmp/unused-by-this-test");
        props.putAll(extra);
        return BrokerConfig.fromMap(props);
    }

    @Test
    void shareGroupSettingsHaveKafkasDefaults() {
        assertThat(GroupCoordinatorSettings.from(config(Map.of())).share()).isEqualTo(ShareGroupConfig.defaults());
    }

    @Test
    void aShareSettingOutsideItsBoundsIsRefusedNamingTheKey() {
        assertThatThrownBy(() ->
                        GroupCoordinatorSettings.from(config(Map.of("group.share.record.lock.duration.ms", "5000"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("group.share.record.lock.duration.ms")
                .hasMessageContaining("between 15000 and 60000");
        assertThatThrownBy(() -> GroupCoordinatorSettings.from(config(Map.of("group.share.assignors", "uniform"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("group.share.assignors");
    }

    @Test
    void loweredBoundsAllowShortLocks() {
        ShareGroupConfig share = GroupCoordinatorSettings.from(config(Map.of(
                        "group.share.min.record.lock.duration.ms", "1000",
                        "group.share.record.lock.duration.ms", "2000")))
                .share();
        assertThat(share.recordLockDurationMs()).isEqualTo(2000);
    }
}

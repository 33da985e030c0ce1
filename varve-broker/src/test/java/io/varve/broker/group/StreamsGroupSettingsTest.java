package io.varve.broker.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import io.varve.coordinator.group.streams.StreamsGroupConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StreamsGroupSettingsTest {
    private static StreamsGroupConfig settings(Map<String, String> props) {
        Map<String, String> all = new HashMap<>(Map.of("log.dirs", "/tmp/varve-test"));
        all.putAll(props);
        return GroupCoordinatorSettings.from(BrokerConfig.fromMap(all)).streams();
    }

    @Test
    void kafkasDefaultsApplyWhenNothingIsSet() {
        StreamsGroupConfig c = settings(Map.of());
        assertThat(c.sessionTimeoutMs()).isEqualTo(45_000);
        assertThat(c.heartbeatIntervalMs()).isEqualTo(5000);
        assertThat(c.numStandbyReplicas()).isZero();
        assertThat(c.maxSize()).isEqualTo(Integer.MAX_VALUE);
        assertThat(c.initialRebalanceDelayMs()).isEqualTo(3000);
    }

    @Test
    void aSessionTimeoutOutsideItsBoundsIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> settings(Map.of("group.streams.session.timeout.ms", "1000")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("group.streams.session.timeout.ms");
    }

    @Test
    void moreStandbysThanTheMaximumAreRefusedNamingTheKey() {
        assertThatThrownBy(() -> settings(Map.of("group.streams.num.standby.replicas", "3")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("group.streams.num.standby.replicas")
                .hasMessageContaining("group.streams.max.standby.replicas");
        assertThat(settings(Map.of("group.streams.num.standby.replicas", "2")).numStandbyReplicas())
                .isEqualTo(2);
    }
}

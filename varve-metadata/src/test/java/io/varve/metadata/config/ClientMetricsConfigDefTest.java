package io.varve.metadata.config;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.junit.jupiter.api.Test;

class ClientMetricsConfigDefTest {
    @Test
    void acceptsKafkasKeysWithinBounds() {
        assertThatCode(() -> ClientMetricsConfigDef.validate(Map.of(
                        "metrics", "org.apache.kafka.producer.,org.apache.kafka.consumer.",
                        "interval.ms", "100",
                        "match", "client_id=app-.*,client_software_name=apache-kafka-java")))
                .doesNotThrowAnyException();
    }

    @Test
    void refusesUnknownKeysIntervalsOutOfBoundsAndBadMatchEntries() {
        assertThatThrownBy(() -> ClientMetricsConfigDef.validate(Map.of("retention.ms", "1")))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessage("Unknown client metrics configuration: retention.ms");
        assertThatThrownBy(() -> ClientMetricsConfigDef.validate(Map.of("interval.ms", "99")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("between 100 and 3600000");
        assertThatThrownBy(() -> ClientMetricsConfigDef.validate(Map.of("interval.ms", "soon")))
                .isInstanceOf(InvalidConfigurationException.class);
        assertThatThrownBy(() -> ClientMetricsConfigDef.validate(Map.of("match", "colour=blue")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("Unknown client matching pattern: colour");
        assertThatThrownBy(() -> ClientMetricsConfigDef.validate(Map.of("match", "client_id=[")))
                .isInstanceOf(InvalidConfigurationException.class);
        assertThatThrownBy(() -> ClientMetricsConfigDef.validate(Map.of("match", "client_id")))
                .isInstanceOf(InvalidConfigurationException.class);
    }
}

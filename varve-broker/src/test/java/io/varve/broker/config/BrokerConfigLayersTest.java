package io.varve.broker.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.config.ConfigLayers;
import io.varve.metadata.config.ConfigSource;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.ConfigResourceType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrokerConfigLayersTest {

    private static MetadataImage imageWith(ConfigRecord... records) {
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        List.of(records).forEach(delta::replay);
        return delta.apply(records.length - 1);
    }

    @Test
    void layersStackThisBrokersDynamicConfigsOverTheClusterDefaultOverServerProperties() {
        BrokerConfig config = BrokerConfig.fromMap(Map.of("node.id", "3", "log.retention.hours", "24"));
        MetadataImage image = imageWith(
                new ConfigRecord(ConfigResourceType.BROKER, "", "log.retention.ms", "5000"),
                new ConfigRecord(ConfigResourceType.BROKER, "3", "log.cleanup.policy", "compact"),
                new ConfigRecord(ConfigResourceType.BROKER, "4", "log.cleanup.policy", "delete,compact"));

        ConfigLayers layers = new BrokerConfigLayers(config).layers(image);

        assertThat(layers.topic("retention.ms", Map.of()).value()).isEqualTo("5000");
        assertThat(layers.topic("cleanup.policy", Map.of()).source()).isEqualTo(ConfigSource.DYNAMIC_BROKER_CONFIG);
        assertThat(layers.topic("cleanup.policy", Map.of()).value()).isEqualTo("compact");
        assertThat(layers.broker("log.retention.hours").source()).isEqualTo(ConfigSource.STATIC_BROKER_CONFIG);
        assertThat(layers.broker("num.partitions").value()).isEqualTo("1");
        assertThat(layers.broker("listeners").value()).isEqualTo("PLAINTEXT://localhost:9092");
    }

    @Test
    void onlyKnownKeysThatCannotChangeAtRuntimeAreStaticOnly() {
        assertThat(BrokerConfigLayers.isStaticOnly("log.dirs")).isTrue();
        assertThat(BrokerConfigLayers.isStaticOnly("num.partitions")).isTrue();
        assertThat(BrokerConfigLayers.isStaticOnly("message.max.bytes")).isFalse();
        assertThat(BrokerConfigLayers.isStaticOnly("log.retention.ms")).isFalse();
        assertThat(BrokerConfigLayers.isStaticOnly("some.plugin.key")).isFalse();
    }

    @Test
    void keysDescribeTheirTypeReadOnlinessAndSensitivity() {
        assertThat(BrokerConfigLayers.keyInfo("log.dirs").dynamic()).isFalse();
        assertThat(BrokerConfigLayers.keyInfo("log.retention.ms").dynamic()).isTrue();
        assertThat(BrokerConfigLayers.keyInfo("log.retention.ms").type()).isEqualTo(ConfigDef.Type.LONG);
        assertThat(BrokerConfigLayers.keyInfo("ssl.keystore.password").sensitive())
                .isTrue();
        assertThat(BrokerConfigLayers.keyInfo("some.plugin.key").sensitive()).isTrue();
        assertThat(BrokerConfigLayers.keyInfo("num.io.threads").sensitive()).isFalse();
    }
}

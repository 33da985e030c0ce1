package io.varve.broker.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.broker.config.BrokerConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchemaRegistryWiringTest {
    private static BrokerConfig config(Map<String, String> extra) {
        Map<String, String> p = new HashMap<>();
        p.put("node.id", "1");
        p.put("listeners", "PLAINTEXT://0.0.0.0:9092");
        p.put("advertised.listeners", "PLAINTEXT://broker1.example:9092");
        p.put("log.dirs", "/tmp/varve-wiring-test");
        p.putAll(extra);
        return BrokerConfig.fromMap(p);
    }

    @Test
    void theUrlOthersForwardWritesToIsTheAdvertisedOneOrTheListenersWithTheBoundPortAndAnAdvertisedHost() {
        BrokerConfig derived = config(Map.of());
        assertThat(SchemaRegistryWiring.advertisedUrl("http://0.0.0.0:0", 40123, derived))
                .isEqualTo("http://broker1.example:40123");
        assertThat(SchemaRegistryWiring.advertisedUrl("https://127.0.0.1:8081", 8081, derived))
                .isEqualTo("https://127.0.0.1:8081");
        BrokerConfig given = config(Map.of("varve.schema.registry.advertised.listener", "http://registry1:8081"));
        assertThat(SchemaRegistryWiring.advertisedUrl("http://0.0.0.0:8081", 8081, given))
                .isEqualTo("http://registry1:8081");
    }

    @Test
    void registrySettingsItCannotUseAreRefusedInOneSentenceNamingTheKey() {
        assertThatThrownBy(() -> SchemaRegistryWiring.checkConfig(config(Map.of(
                        "varve.schema.registry.listeners", "http://127.0.0.1:8081",
                        "varve.schema.registry.advertised.listener", "https://registry1:8081"))))
                .hasMessageStartingWith("varve.schema.registry.advertised.listener: ");
        assertThatThrownBy(() -> SchemaRegistryWiring.checkConfig(config(Map.of(
                        "varve.schema.registry.listeners", "http://127.0.0.1:8081",
                        "varve.schema.registry.security.listener", "NOPE"))))
                .hasMessageStartingWith("varve.schema.registry.security.listener: 'NOPE' is not one of the listeners");
    }
}

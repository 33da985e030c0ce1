package io.varve.metadata.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigLayersTest {

    private static ConfigLayers layers(
            Map<String, String> dynamicBroker, Map<String, String> dynamicDefault, Map<String, String> staticConfigs) {
        return new ConfigLayers(dynamicBroker, dynamicDefault, staticConfigs, DynamicBrokerConfigDef.defaults());
    }

    @Test
    void anUntouchedTopicKeyComesFromTheBrokerDefaultSynonymInTheTopicUnit() {
        ResolvedConfig retention = ConfigLayers.builtIn().topic("retention.ms", Map.of());

        assertThat(retention.value()).isEqualTo("604800000");
        assertThat(retention.source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
        assertThat(retention.synonyms())
                .containsExactly(new ConfigSynonym("log.retention.hours", "168", ConfigSource.DEFAULT_CONFIG));
    }

    @Test
    void synonymsAreOrderedByLayerThenByName() {
        ConfigLayers layers = layers(
                Map.of("log.retention.ms", "1000"),
                Map.of("log.retention.ms", "2000"),
                Map.of("log.retention.hours", "3", "log.retention.minutes", "4"));

        ResolvedConfig retention = layers.topic("retention.ms", Map.of("retention.ms", "500"));

        assertThat(retention.value()).isEqualTo("500");
        assertThat(retention.source()).isEqualTo(ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(retention.synonyms())
                .extracting(ConfigSynonym::name, ConfigSynonym::source)
                .containsExactly(
                        tuple("retention.ms", ConfigSource.DYNAMIC_TOPIC_CONFIG),
                        tuple("log.retention.ms", ConfigSource.DYNAMIC_BROKER_CONFIG),
                        tuple("log.retention.ms", ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
                        tuple("log.retention.minutes", ConfigSource.STATIC_BROKER_CONFIG),
                        tuple("log.retention.hours", ConfigSource.STATIC_BROKER_CONFIG),
                        tuple("log.retention.hours", ConfigSource.DEFAULT_CONFIG));
    }

    @Test
    void withoutATopicOverrideTheHighestBrokerLayerDecides() {
        assertThat(layers(Map.of(), Map.of("log.retention.ms", "2000"), Map.of("log.retention.hours", "3"))
                        .topic("retention.ms", Map.of()))
                .extracting(ResolvedConfig::value, ResolvedConfig::source)
                .containsExactly("2000", ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
        assertThat(layers(Map.of(), Map.of(), Map.of("log.retention.minutes", "5"))
                        .topic("retention.ms", Map.of()))
                .extracting(ResolvedConfig::value, ResolvedConfig::source)
                .containsExactly("300000", ConfigSource.STATIC_BROKER_CONFIG);
    }

    @Test
    void aTopicKeyWithoutBrokerSynonymsHasTheTopicDefault() {
        ResolvedConfig remote = ConfigLayers.builtIn().topic("remote.storage.enable", Map.of());

        assertThat(remote.value()).isEqualTo("false");
        assertThat(remote.source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
        assertThat(remote.synonyms()).isEmpty();
    }

    @Test
    void topicValuesCoverEveryTopicKey() {
        Map<String, String> values = layers(Map.of(), Map.of("message.max.bytes", "5000"), Map.of())
                .topicValues(Map.of("segment.ms", "1000"));

        assertThat(values.keySet()).containsAll(TopicConfigDef.keys().keySet());
        assertThat(values)
                .containsEntry("max.message.bytes", "5000")
                .containsEntry("segment.ms", "1000")
                .containsEntry("cleanup.policy", "delete");
    }

    @Test
    void aBrokerKeyShowsItsOwnValueAndItsLowerSynonyms() {
        ConfigLayers layers = layers(Map.of("log.retention.ms", "1000"), Map.of("log.retention.ms", "2000"), Map.of());

        ResolvedConfig onBroker = layers.broker("log.retention.ms");
        ResolvedConfig clusterDefault = layers.clusterDefault("log.retention.ms");
        ResolvedConfig hours = layers.broker("log.retention.hours");

        assertThat(onBroker.value()).isEqualTo("1000");
        assertThat(onBroker.source()).isEqualTo(ConfigSource.DYNAMIC_BROKER_CONFIG);
        assertThat(onBroker.synonyms()).hasSize(3);
        assertThat(clusterDefault.value()).isEqualTo("2000");
        assertThat(clusterDefault.synonyms())
                .extracting(ConfigSynonym::source)
                .containsOnly(ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
        assertThat(hours.value()).isEqualTo("168");
        assertThat(hours.source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
    }

    @Test
    void onlyTheFirstSynonymOfATopicKeyIsDynamic() {
        assertThat(DynamicBrokerConfigDef.isDynamic("log.retention.ms")).isTrue();
        assertThat(DynamicBrokerConfigDef.isDynamic("log.retention.hours")).isFalse();
        assertThat(DynamicBrokerConfigDef.isDynamic("log.cleaner.threads")).isTrue();
        assertThat(DynamicBrokerConfigDef.synonymsOfBrokerKey("log.retention.minutes"))
                .containsExactly("log.retention.minutes", "log.retention.hours");
        assertThat(DynamicBrokerConfigDef.synonymsOfBrokerKey("log.dirs")).containsExactly("log.dirs");
    }

    @Test
    void aGroupKeyIsItsOverrideElseTheBrokerWideKeyItFallsBackToElseItsDefault() {
        ConfigLayers layers = layers(Map.of(), Map.of(), Map.of("group.consumer.session.timeout.ms", "50000"));
        ResolvedConfig overridden = layers.group(
                "consumer.session.timeout.ms",
                "group.consumer.session.timeout.ms",
                "45000",
                Map.of("consumer.session.timeout.ms", "3000"));
        assertThat(overridden.value()).isEqualTo("3000");
        assertThat(overridden.source()).isEqualTo(ConfigSource.DYNAMIC_GROUP_CONFIG);
        assertThat(overridden.synonyms())
                .extracting(ConfigSynonym::name, ConfigSynonym::source)
                .containsExactly(
                        tuple("consumer.session.timeout.ms", ConfigSource.DYNAMIC_GROUP_CONFIG),
                        tuple("group.consumer.session.timeout.ms", ConfigSource.STATIC_BROKER_CONFIG));

        ResolvedConfig fallback =
                layers.group("consumer.session.timeout.ms", "group.consumer.session.timeout.ms", "45000", Map.of());
        assertThat(fallback.value()).isEqualTo("50000");
        assertThat(fallback.source()).isEqualTo(ConfigSource.STATIC_BROKER_CONFIG);

        ResolvedConfig own = layers.group("share.auto.offset.reset", null, "latest", Map.of());
        assertThat(own.value()).isEqualTo("latest");
        assertThat(own.source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
    }
}

package io.varve.metadata.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The broker-level config layers one broker sees, highest precedence first: dynamic settings for this
 * broker, dynamic cluster-wide defaults, {@code server.properties}, and built-in defaults. Resolves
 * broker keys and topic keys (over a topic's own overrides) the way Kafka's DescribeConfigs reports
 * them, with sources and synonyms. Immutable; maps hold no null values.
 *
 * @param dynamicBroker  broker resource "&lt;node id&gt;" in the metadata image
 * @param dynamicDefault broker resource "" in the metadata image
 * @param staticConfigs  the keys set in {@code server.properties} (and overrides), as written
 * @param defaults       built-in defaults of the broker keys that have one
 */
public record ConfigLayers(
        Map<String, String> dynamicBroker,
        Map<String, String> dynamicDefault,
        Map<String, String> staticConfigs,
        Map<String, String> defaults) {

    public ConfigLayers {
        dynamicBroker = Map.copyOf(dynamicBroker);
        dynamicDefault = Map.copyOf(dynamicDefault);
        staticConfigs = Map.copyOf(staticConfigs);
        defaults = Map.copyOf(defaults);
    }

    /** Only Kafka's defaults of the broker synonyms of topic keys: what a broker without settings sees. */
    public static ConfigLayers builtIn() {
        return new ConfigLayers(Map.of(), Map.of(), Map.of(), DynamicBrokerConfigDef.defaults());
    }

    /**
     * Every layer that sets one of {@code names}: layer by layer, and within a layer in the order of
     * {@code names} (Kafka's synonym order).
     */
    public List<ConfigSynonym> synonyms(List<String> names) {
        List<ConfigSynonym> found = new ArrayList<>();
        addFrom(found, dynamicBroker, ConfigSource.DYNAMIC_BROKER_CONFIG, names);
        addFrom(found, dynamicDefault, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, names);
        addFrom(found, staticConfigs, ConfigSource.STATIC_BROKER_CONFIG, names);
        addFrom(found, defaults, ConfigSource.DEFAULT_CONFIG, names);
        return found;
    }

    private static void addFrom(
            List<ConfigSynonym> out, Map<String, String> layer, ConfigSource source, List<String> names) {
        for (String name : names) {
            String value = layer.get(name);
            if (value != null) {
                out.add(new ConfigSynonym(name, value, source));
            }
        }
    }

    /** A broker key as this broker sees it: its own value from the highest layer that sets it. */
    public ResolvedConfig broker(String name) {
        List<ConfigSynonym> synonyms = synonyms(DynamicBrokerConfigDef.synonymsOfBrokerKey(name));
        String value = firstNonNull(
                dynamicBroker.get(name), dynamicDefault.get(name), staticConfigs.get(name), defaults.get(name));
        return resolved(name, value, synonyms);
    }

    /** A broker key of the cluster-wide default resource (broker ""): only the dynamic default layer. */
    public ResolvedConfig clusterDefault(String name) {
        List<ConfigSynonym> synonyms = synonyms(DynamicBrokerConfigDef.synonymsOfBrokerKey(name)).stream()
                .filter(s -> s.source() == ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG)
                .toList();
        return resolved(name, dynamicDefault.get(name), synonyms);
    }

    /**
     * A topic key over the topic's overrides: the override if any, else the highest broker synonym
     * converted to the topic key's unit, else the topic default.
     */
    public ResolvedConfig topic(String topicKey, Map<String, String> topicOverrides) {
        List<ConfigSynonym> synonyms = new ArrayList<>();
        String override = topicOverrides.get(topicKey);
        if (override != null) {
            synonyms.add(new ConfigSynonym(topicKey, override, ConfigSource.DYNAMIC_TOPIC_CONFIG));
        }
        synonyms.addAll(synonyms(DynamicBrokerConfigDef.brokerSynonymsOf(topicKey)));
        String value;
        if (synonyms.isEmpty()) {
            ConfigKey key = TopicConfigDef.keys().get(topicKey);
            value = key == null ? null : key.defaultValue();
        } else {
            ConfigSynonym head = synonyms.get(0);
            value = head.source() == ConfigSource.DYNAMIC_TOPIC_CONFIG
                    ? head.value()
                    : DynamicBrokerConfigDef.toTopicUnit(head.name(), head.value());
        }
        return resolved(topicKey, value, synonyms);
    }

    /**
     * A group key over the group's overrides: the override if any, else the broker-wide key it falls back to
     * ({@code brokerSynonym}, null if none), else {@code keyDefault}.
     */
    public ResolvedConfig group(
            String groupKey, String brokerSynonym, String keyDefault, Map<String, String> groupOverrides) {
        List<ConfigSynonym> synonyms = new ArrayList<>();
        String override = groupOverrides.get(groupKey);
        if (override != null) {
            synonyms.add(new ConfigSynonym(groupKey, override, ConfigSource.DYNAMIC_GROUP_CONFIG));
        }
        if (brokerSynonym != null) {
            synonyms.addAll(synonyms(List.of(brokerSynonym)));
        }
        String value = synonyms.isEmpty() ? keyDefault : synonyms.get(0).value();
        return resolved(groupKey, value, synonyms);
    }

    /** The effective value of every topic key for a topic with these overrides (what its log should use). */
    public Map<String, String> topicValues(Map<String, String> topicOverrides) {
        Map<String, String> values = new TreeMap<>();
        for (String topicKey : TopicConfigDef.keys().keySet()) {
            String value = topic(topicKey, topicOverrides).value();
            if (value != null) {
                values.put(topicKey, value);
            }
        }
        return Collections.unmodifiableMap(values);
    }

    private static ResolvedConfig resolved(String name, String value, List<ConfigSynonym> synonyms) {
        ConfigSource source = synonyms.isEmpty()
                ? ConfigSource.DEFAULT_CONFIG
                : synonyms.get(0).source();
        return new ResolvedConfig(name, value, source, synonyms);
    }

    @SafeVarargs
    private static <T> T firstNonNull(T... values) {
        for (T value : values) {
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    /** Static values may be secrets: only their names are printed. */
    @Override
    public String toString() {
        return "ConfigLayers(dynamicBroker=" + dynamicBroker + ", dynamicDefault=" + dynamicDefault + ", static="
                + staticConfigs.keySet() + ")";
    }
}

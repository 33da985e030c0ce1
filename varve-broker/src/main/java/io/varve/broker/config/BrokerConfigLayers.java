package io.varve.broker.config;

import io.varve.metadata.config.ConfigLayers;
import io.varve.metadata.config.DynamicBrokerConfigDef;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.ConfigResourceType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The broker-level config keys this node knows (its {@code server.properties} keys and the dynamic
 * broker keys of {@link DynamicBrokerConfigDef}) and the {@link ConfigLayers} it sees: dynamic
 * settings from the metadata image over its static config over built-in defaults.
 */
public final class BrokerConfigLayers {

    /** One broker key as DescribeConfigs shows it. {@code type} is null for a key only set dynamically. */
    public record KeyInfo(String name, ConfigDef.Type type, boolean dynamic, String documentation) {
        /** Kafka hides values of passwords and of keys whose type it does not know. */
        public boolean sensitive() {
            return type == null || type == ConfigDef.Type.PASSWORD;
        }
    }

    private static final ConfigResource CLUSTER_DEFAULT = new ConfigResource(ConfigResourceType.BROKER, "");

    private final BrokerConfig config;
    private final Map<String, String> defaults;

    public BrokerConfigLayers(BrokerConfig config) {
        this.config = config;
        Map<String, String> merged = new HashMap<>(DynamicBrokerConfigDef.defaults());
        for (ConfigDef.Key key : BrokerConfig.DEF.keys().values()) {
            if (key.defaultValue() != null) {
                merged.put(key.name(), asString(key.defaultValue()));
            }
        }
        this.defaults = Map.copyOf(merged);
    }

    /** The layers as of this metadata image. */
    public ConfigLayers layers(MetadataImage image) {
        return layers(
                image.configs().configs(ConfigResource.broker(config.nodeId())),
                image.configs().configs(CLUSTER_DEFAULT));
    }

    /**
     * The layers over these dynamic settings.
     *
     * @param dynamicBroker  the image's configs of broker resource "&lt;this node id&gt;"
     * @param dynamicDefault the image's configs of broker resource "" (cluster-wide defaults)
     */
    public ConfigLayers layers(Map<String, String> dynamicBroker, Map<String, String> dynamicDefault) {
        return new ConfigLayers(dynamicBroker, dynamicDefault, config.originals(), defaults);
    }

    /** Keys that can only be set in {@code server.properties}: dynamic changes of them are refused. */
    public static boolean isStaticOnly(String name) {
        return BrokerConfig.DEF.contains(name) && !DynamicBrokerConfigDef.isDynamic(name);
    }

    /** Every key a broker resource describes: the known keys plus any set dynamically, sorted. */
    public List<KeyInfo> keys(ConfigLayers layers) {
        TreeSet<String> names = new TreeSet<>(BrokerConfig.DEF.keys().keySet());
        names.addAll(DynamicBrokerConfigDef.keys().keySet());
        names.addAll(layers.dynamicBroker().keySet());
        names.addAll(layers.dynamicDefault().keySet());
        return names.stream().map(BrokerConfigLayers::keyInfo).toList();
    }

    public static KeyInfo keyInfo(String name) {
        Optional<DynamicBrokerConfigDef.Key> dynamicKey = DynamicBrokerConfigDef.key(name);
        ConfigDef.Key staticKey = BrokerConfig.DEF.key(name);
        ConfigDef.Type type = staticKey != null
                ? staticKey.type()
                : dynamicKey.map(k -> ConfigDef.Type.valueOf(k.type().name())).orElse(null);
        boolean dynamic = dynamicKey.map(DynamicBrokerConfigDef.Key::dynamic).orElse(staticKey == null);
        return new KeyInfo(
                name,
                type,
                dynamic,
                dynamicKey.map(DynamicBrokerConfigDef.Key::documentation).orElse(null));
    }

    private static String asString(Object value) {
        if (value instanceof List<?> list) {
            return list.stream().map(String::valueOf).collect(Collectors.joining(","));
        }
        return String.valueOf(value);
    }
}

package io.varve.metadata.controller;

import io.varve.metadata.config.ClientMetricsConfigDef;
import io.varve.metadata.config.ConfigType;
import io.varve.metadata.config.DynamicBrokerConfigDef;
import io.varve.metadata.config.GroupConfigBounds;
import io.varve.metadata.config.GroupConfigDef;
import io.varve.metadata.config.TopicConfigDef;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.MetadataRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.BrokerIdNotRegisteredException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Decides config changes of topics, brokers, client-metrics subscriptions and groups (IncrementalAlterConfigs and the legacy
 * AlterConfigs) against a metadata image, with Kafka 4.x's validation and errors. Each resource
 * succeeds or fails as a whole. Pure: results carry the {@link ConfigRecord}s to write, one per key
 * whose stored value changes (a null value deletes the key).
 */
public final class ConfigControl {

    private final Predicate<String> staticOnlyBrokerKey;
    private final GroupConfigBounds groupBounds;

    public ConfigControl(Predicate<String> staticOnlyBrokerKey) {
        this(staticOnlyBrokerKey, GroupConfigBounds.DEFAULTS);
    }

    /**
     * @param staticOnlyBrokerKey true for broker keys the node knows that can only be set in
     *                            {@code server.properties} (refused dynamically, as Kafka does)
     * @param groupBounds         the broker-wide bounds a group's own settings must lie within (this node's, as
     *                            Kafka's controller checks against its own)
     */
    public ConfigControl(Predicate<String> staticOnlyBrokerKey, GroupConfigBounds groupBounds) {
        this.staticOnlyBrokerKey = Objects.requireNonNull(staticOnlyBrokerKey, "staticOnlyBrokerKey");
        this.groupBounds = Objects.requireNonNull(groupBounds, "groupBounds");
    }

    /** Applies each resource's operations to its stored configs; one result per resource, in order. */
    public ControllerResult<List<AlterConfigResult>> incrementalAlterConfigs(
            MetadataImage image, Map<ConfigResource, List<ConfigChange>> changes) {
        return alter(image, changes, this::incremental);
    }

    /** Replaces each resource's stored configs with the given set (keys not named are deleted). */
    public ControllerResult<List<AlterConfigResult>> legacyAlterConfigs(
            MetadataImage image, Map<ConfigResource, Map<String, String>> configs) {
        return alter(image, configs, this::replace);
    }

    @FunctionalInterface
    private interface ResourceChange<C> {
        /** The new stored value of every key that changes (null = deleted); throws ApiException if refused. */
        Map<String, String> decide(MetadataImage image, ConfigResource resource, C change);
    }

    private static <C> ControllerResult<List<AlterConfigResult>> alter(
            MetadataImage image, Map<ConfigResource, C> changes, ResourceChange<C> decider) {
        List<MetadataRecord> records = new ArrayList<>();
        List<AlterConfigResult> results = new ArrayList<>(changes.size());
        for (Map.Entry<ConfigResource, C> entry : changes.entrySet()) {
            ConfigResource resource = entry.getKey();
            Map<String, String> newValues;
            try {
                newValues = decider.decide(image, resource, entry.getValue());
            } catch (ApiException e) {
                results.add(new AlterConfigResult(resource, Errors.forException(e), e.getMessage()));
                continue;
            }
            Map<String, String> stored = image.configs().configs(resource);
            new TreeMap<>(newValues).forEach((name, value) -> {
                if (!Objects.equals(stored.get(name), value)) {
                    records.add(new ConfigRecord(resource.type(), resource.name(), name, value));
                }
            });
            results.add(AlterConfigResult.success(resource));
        }
        return ControllerResult.of(records, results);
    }

    private Map<String, String> incremental(MetadataImage image, ConfigResource resource, List<ConfigChange> ops) {
        Set<String> names = new HashSet<>();
        List<String> nullValues = new ArrayList<>();
        for (ConfigChange op : ops) {
            if (!names.add(op.name())) {
                throw new InvalidRequestException("Error due to duplicate config keys");
            }
            if (op.op() != ConfigChange.Op.DELETE && op.value() == null) {
                nullValues.add(op.name());
            }
        }
        if (!nullValues.isEmpty()) {
            throw new InvalidRequestException("Null value not supported for : " + String.join(", ", nullValues));
        }
        Map<String, String> stored = image.configs().configs(resource);
        Map<String, String> newValues = new HashMap<>();
        for (ConfigChange op : ops) {
            String current = stored.get(op.name());
            String next =
                    switch (op.op()) {
                        case SET -> op.value();
                        case DELETE -> null;
                        case APPEND, SUBTRACT -> applyListOp(resource, op, current);
                    };
            newValues.put(op.name(), next);
        }
        validate(image, resource, newValues, merged(stored, newValues));
        return newValues;
    }

    private Map<String, String> replace(MetadataImage image, ConfigResource resource, Map<String, String> configs) {
        List<String> nullValues = configs.entrySet().stream()
                .filter(e -> e.getValue() == null)
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
        if (!nullValues.isEmpty()) {
            throw new InvalidRequestException("Null value not supported for : " + String.join(", ", nullValues));
        }
        Map<String, String> newValues = new HashMap<>(configs);
        image.configs().configs(resource).keySet().forEach(name -> newValues.putIfAbsent(name, null));
        validate(image, resource, newValues, configs);
        return newValues;
    }

    private static Map<String, String> merged(Map<String, String> stored, Map<String, String> newValues) {
        Map<String, String> all = new HashMap<>(stored);
        newValues.forEach((name, value) -> {
            if (value == null) {
                all.remove(name);
            } else {
                all.put(name, value);
            }
        });
        return all;
    }

    /** APPEND or SUBTRACT on a list config, starting from its default when it is not set. */
    private static String applyListOp(ConfigResource resource, ConfigChange op, String current) {
        Optional<ListKey> listKey = listKey(resource, op.name());
        if (listKey.isEmpty()) {
            throw new InvalidConfigurationException(
                    switch (resource.type()) {
                        case TOPIC -> "Can't " + op.op() + " to key " + op.name() + " because its type is not LIST.";
                        case BROKER, CLIENT_METRICS, GROUP ->
                            "Config value " + (op.op() == ConfigChange.Op.APPEND ? "append" : "subtract")
                                    + " is not allowed for config key: " + op.name();
                    });
        }
        List<String> elements = new ArrayList<>();
        String base = current != null ? current : listKey.get().defaultValue();
        if (base != null) {
            for (String element : base.split(",")) {
                if (!element.isEmpty()) {
                    elements.add(element);
                }
            }
        }
        for (String element : op.value().split(",")) {
            if (op.op() == ConfigChange.Op.APPEND) {
                if (!elements.contains(element)) {
                    elements.add(element);
                }
            } else {
                elements.remove(element);
            }
        }
        return String.join(",", elements);
    }

    /** A list-typed config key; {@code defaultValue} may be null. */
    private record ListKey(String defaultValue) {}

    private static Optional<ListKey> listKey(ConfigResource resource, String name) {
        return switch (resource.type()) {
            case TOPIC ->
                Optional.ofNullable(TopicConfigDef.keys().get(name))
                        .filter(key -> key.type() == ConfigType.LIST)
                        .map(key -> new ListKey(key.defaultValue()));
            case BROKER ->
                DynamicBrokerConfigDef.key(name)
                        .filter(key -> key.type() == ConfigType.LIST)
                        .map(key -> new ListKey(key.defaultValue()));
            case CLIENT_METRICS ->
                ClientMetricsConfigDef.isList(name) ? Optional.of(new ListKey(null)) : Optional.empty();
            case GROUP -> GroupConfigDef.isList(name) ? Optional.of(new ListKey(null)) : Optional.empty();
        };
    }

    /**
     * @param changed the keys being set or deleted (null values = deleted)
     * @param all     the resource's complete configs after the change
     */
    private void validate(
            MetadataImage image, ConfigResource resource, Map<String, String> changed, Map<String, String> all) {
        switch (resource.type()) {
            case TOPIC -> {
                if (resource.name().isEmpty()) {
                    throw new InvalidRequestException("Default topic resources are not allowed.");
                }
                Optional<String> illegal = TopicNames.validate(resource.name());
                if (illegal.isPresent()) {
                    throw new InvalidTopicException(illegal.get());
                }
                TopicConfigDef.validate(all);
                if (image.topics().getTopic(resource.name()) == null) {
                    throw new UnknownTopicOrPartitionException("The topic '" + resource.name() + "' does not exist.");
                }
            }
            case BROKER -> {
                int brokerId = resource.name().isEmpty() ? -1 : brokerId(resource.name());
                Map<String, String> set = new HashMap<>();
                changed.forEach((name, value) -> {
                    if (value != null) {
                        set.put(name, value);
                    }
                });
                DynamicBrokerConfigDef.validate(set, staticOnlyBrokerKey);
                if (brokerId >= 0 && image.cluster().broker(brokerId) == null) {
                    throw new BrokerIdNotRegisteredException("No broker with id " + brokerId + " found.");
                }
            }
            case CLIENT_METRICS -> {
                if (resource.name().isEmpty()) {
                    throw new InvalidRequestException("Subscription name can't be empty");
                }
                ClientMetricsConfigDef.validate(all);
            }
            case GROUP -> {
                if (resource.name().isEmpty()) {
                    throw new InvalidRequestException("Default group resources are not allowed.");
                }
                GroupConfigDef.validate(all, groupBounds);
            }
        }
    }

    /** The broker id a BROKER resource names; Kafka's errors if it is not one. */
    static int brokerId(String resourceName) {
        int brokerId;
        try {
            brokerId = Integer.parseInt(resourceName);
        } catch (NumberFormatException e) {
            throw new InvalidRequestException("Unable to parse broker name as a base 10 number.");
        }
        if (brokerId < 0) {
            throw new InvalidRequestException("Invalid negative broker ID.");
        }
        return brokerId;
    }
}

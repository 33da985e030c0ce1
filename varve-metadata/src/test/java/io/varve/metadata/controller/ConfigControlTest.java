package io.varve.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.ConfigResourceType;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.metadata.record.TopicRecord;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ConfigControlTest {

    private static final ConfigResource ORDERS = ConfigResource.topic("orders");
    private static final ConfigResource CLUSTER = new ConfigResource(ConfigResourceType.BROKER, "");
    private static final ConfigResource BROKER_1 = ConfigResource.broker(1);

    private final ConfigControl control = new ConfigControl(Set.of("log.dirs", "listeners")::contains);
    private MetadataImage image = imageWithBrokerAndTopic();

    private static MetadataImage imageWithBrokerAndTopic() {
        Uuid topicId = Uuid.randomUuid();
        return apply(
                MetadataImage.EMPTY,
                List.of(
                        new RegisterBrokerRecord(
                                1, Uuid.randomUuid(), List.of(new Endpoint("PLAINTEXT", "h", 9092, "PLAINTEXT")), null),
                        new TopicRecord("orders", topicId),
                        new PartitionRecord(topicId, 0, new int[] {1}, new int[] {1}, 1, 0, 0),
                        new ConfigRecord(ConfigResourceType.TOPIC, "orders", "retention.ms", "1000")));
    }

    private static MetadataImage apply(MetadataImage base, List<MetadataRecord> records) {
        MetadataDelta delta = new MetadataDelta(base);
        records.forEach(delta::replay);
        return delta.apply(base.offset() + records.size());
    }

    private AlterConfigResult incremental(ConfigResource resource, ConfigChange... ops) {
        ControllerResult<List<AlterConfigResult>> result =
                control.incrementalAlterConfigs(image, Map.of(resource, List.of(ops)));
        image = apply(image, result.records());
        return result.response().get(0);
    }

    private AlterConfigResult legacy(ConfigResource resource, Map<String, String> configs) {
        ControllerResult<List<AlterConfigResult>> result = control.legacyAlterConfigs(image, Map.of(resource, configs));
        image = apply(image, result.records());
        return result.response().get(0);
    }

    private static ConfigChange op(String name, ConfigChange.Op op, String value) {
        return new ConfigChange(name, op, value);
    }

    @Test
    void setAndDeleteChangeOnlyTheNamedTopicKeys() {
        assertThat(incremental(ORDERS, ConfigChange.set("max.message.bytes", "2000"))
                        .error())
                .isEqualTo(Errors.NONE);
        assertThat(image.configs().topicConfigs("orders"))
                .containsExactlyInAnyOrderEntriesOf(Map.of("retention.ms", "1000", "max.message.bytes", "2000"));

        assertThat(incremental(ORDERS, ConfigChange.delete("retention.ms")).error())
                .isEqualTo(Errors.NONE);
        assertThat(image.configs().topicConfigs("orders"))
                .containsExactlyEntriesOf(Map.of("max.message.bytes", "2000"));
    }

    @Test
    void settingTheStoredValueOrDeletingAnUnsetKeyWritesNothing() {
        ControllerResult<List<AlterConfigResult>> result = control.incrementalAlterConfigs(
                image,
                Map.of(ORDERS, List.of(ConfigChange.set("retention.ms", "1000"), ConfigChange.delete("segment.ms"))));

        assertThat(result.response().get(0).error()).isEqualTo(Errors.NONE);
        assertThat(result.records()).isEmpty();
    }

    @Test
    void appendToAnUnsetListStartsFromTheDefaultAndSkipsPresentElements() {
        incremental(ORDERS, op("cleanup.policy", ConfigChange.Op.APPEND, "compact,delete"));
        assertThat(image.configs().topicConfigs("orders")).containsEntry("cleanup.policy", "delete,compact");

        incremental(ORDERS, op("cleanup.policy", ConfigChange.Op.SUBTRACT, "delete"));
        assertThat(image.configs().topicConfigs("orders")).containsEntry("cleanup.policy", "compact");
    }

    @Test
    void appendToANonListKeyIsInvalidConfig() {
        AlterConfigResult topic = incremental(ORDERS, op("retention.ms", ConfigChange.Op.APPEND, "5"));
        AlterConfigResult broker = incremental(CLUSTER, op("log.retention.ms", ConfigChange.Op.SUBTRACT, "5"));

        assertThat(topic.error()).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(topic.message()).isEqualTo("Can't APPEND to key retention.ms because its type is not LIST.");
        assertThat(broker.error()).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(broker.message()).isEqualTo("Config value subtract is not allowed for config key: log.retention.ms");
    }

    @Test
    void unknownKeysAndInvalidValuesOfTopicsAreInvalidConfigAndChangeNothing() {
        AlterConfigResult unknown =
                incremental(ORDERS, ConfigChange.set("retention.ms", "5"), ConfigChange.set("no.such.key", "1"));
        AlterConfigResult invalid = incremental(ORDERS, ConfigChange.set("segment.bytes", "10"));

        assertThat(unknown.error()).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(unknown.message()).isEqualTo("Unknown topic config name: no.such.key");
        assertThat(invalid.error()).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(invalid.message()).startsWith("Invalid value 10 for configuration segment.bytes");
        assertThat(image.configs().topicConfigs("orders")).containsExactlyEntriesOf(Map.of("retention.ms", "1000"));
    }

    @Test
    void aMissingTopicIsUnknownTopicOrPartitionAndIllegalNamesAreRefused() {
        AlterConfigResult missing = incremental(ConfigResource.topic("nope"), ConfigChange.set("retention.ms", "5"));
        AlterConfigResult empty = incremental(ConfigResource.topic(""), ConfigChange.set("retention.ms", "5"));
        AlterConfigResult illegal = incremental(ConfigResource.topic("a b"), ConfigChange.set("retention.ms", "5"));

        assertThat(missing.error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(missing.message()).isEqualTo("The topic 'nope' does not exist.");
        assertThat(empty.error()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(illegal.error()).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION);
    }

    @Test
    void duplicateKeysAndNullValuesAreInvalidRequest() {
        AlterConfigResult duplicate =
                incremental(ORDERS, ConfigChange.set("retention.ms", "5"), ConfigChange.delete("retention.ms"));
        AlterConfigResult nullValue = incremental(ORDERS, ConfigChange.set("retention.ms", null));

        assertThat(duplicate.error()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(duplicate.message()).isEqualTo("Error due to duplicate config keys");
        assertThat(nullValue.error()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(nullValue.message()).isEqualTo("Null value not supported for : retention.ms");
    }

    @Test
    void eachResourceSucceedsOrFailsOnItsOwn() {
        Map<ConfigResource, List<ConfigChange>> changes = new LinkedHashMap<>();
        changes.put(ConfigResource.topic("nope"), List.of(ConfigChange.set("retention.ms", "5")));
        changes.put(ORDERS, List.of(ConfigChange.set("retention.ms", "5")));

        ControllerResult<List<AlterConfigResult>> result = control.incrementalAlterConfigs(image, changes);

        assertThat(result.response())
                .extracting(AlterConfigResult::error)
                .containsExactly(Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NONE);
        assertThat(result.records())
                .containsExactly(new ConfigRecord(ConfigResourceType.TOPIC, "orders", "retention.ms", "5"));
    }

    @Test
    void dynamicBrokerKeysMaySetTheClusterDefaultAndOneBroker() {
        assertThat(incremental(CLUSTER, ConfigChange.set("log.retention.ms", "60000"))
                        .error())
                .isEqualTo(Errors.NONE);
        assertThat(incremental(BROKER_1, ConfigChange.set("log.cleanup.policy", "compact"))
                        .error())
                .isEqualTo(Errors.NONE);

        assertThat(image.configs().configs(CLUSTER)).containsExactlyEntriesOf(Map.of("log.retention.ms", "60000"));
        assertThat(image.configs().configs(BROKER_1)).containsExactlyEntriesOf(Map.of("log.cleanup.policy", "compact"));
    }

    @Test
    void staticOnlyBrokerKeysAreInvalidRequestNamingThemAll() {
        AlterConfigResult result = incremental(
                CLUSTER,
                ConfigChange.set("log.retention.hours", "1"),
                ConfigChange.set("log.dirs", "/x"),
                ConfigChange.set("log.retention.ms", "5"));

        assertThat(result.error()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(result.message())
                .isEqualTo("Cannot update these configs dynamically: Set(log.dirs, log.retention.hours)");
        assertThat(image.configs().configs(CLUSTER)).isEmpty();
    }

    @Test
    void invalidBrokerValuesAreInvalidRequestAsInKafka() {
        AlterConfigResult notANumber = incremental(CLUSTER, ConfigChange.set("log.retention.ms", "soon"));
        AlterConfigResult belowMinimum = incremental(BROKER_1, ConfigChange.set("log.segment.bytes", "100"));

        assertThat(notANumber.error()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(notANumber.message())
                .isEqualTo("Invalid value soon for configuration log.retention.ms: Not a number of type LONG");
        assertThat(belowMinimum.error()).isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void customBrokerKeysAreAcceptedAsKafkaAcceptsThem() {
        assertThat(incremental(CLUSTER, ConfigChange.set("my.plugin.setting", "x"))
                        .error())
                .isEqualTo(Errors.NONE);
    }

    @Test
    void brokerNamesMustBeARegisteredNonNegativeId() {
        assertThat(incremental(ConfigResource.broker(7), ConfigChange.set("log.retention.ms", "5"))
                        .error())
                .isEqualTo(Errors.BROKER_ID_NOT_REGISTERED);
        assertThat(incremental(
                                new ConfigResource(ConfigResourceType.BROKER, "x"),
                                ConfigChange.set("log.retention.ms", "5"))
                        .error())
                .isEqualTo(Errors.INVALID_REQUEST);
        assertThat(incremental(
                                new ConfigResource(ConfigResourceType.BROKER, "-1"),
                                ConfigChange.set("log.retention.ms", "5"))
                        .error())
                .isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void legacyAlterReplacesTheWholeSet() {
        incremental(ORDERS, ConfigChange.set("max.message.bytes", "2000"));

        AlterConfigResult result = legacy(ORDERS, Map.of("segment.ms", "100000", "max.message.bytes", "3000"));

        assertThat(result.error()).isEqualTo(Errors.NONE);
        assertThat(image.configs().topicConfigs("orders"))
                .containsExactlyInAnyOrderEntriesOf(Map.of("segment.ms", "100000", "max.message.bytes", "3000"));
    }

    @Test
    void legacyAlterValidatesLikeIncremental() {
        Map<String, String> withNull = new LinkedHashMap<>();
        withNull.put("retention.ms", null);

        assertThat(legacy(ORDERS, Map.of("no.such.key", "1")).error()).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(legacy(ORDERS, withNull).error()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(legacy(CLUSTER, Map.of("log.dirs", "/x")).error()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(image.configs().topicConfigs("orders")).containsExactlyEntriesOf(Map.of("retention.ms", "1000"));
    }
}

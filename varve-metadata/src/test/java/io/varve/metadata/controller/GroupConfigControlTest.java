package io.varve.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.config.GroupConfigBounds;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.ConfigResourceType;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.MetadataRecordSerde;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** GROUP config resources through the controller: stored as config records, checked against the node's bounds. */
class GroupConfigControlTest {
    private static final ConfigResource GROUP = ConfigResource.group("g");

    private final ConfigControl control = new ConfigControl(
            name -> false,
            GroupConfigBounds.builder()
                    .sessionPair("consumer.session.timeout.ms", 1000, 60_000, 45_000)
                    .heartbeatPair("consumer.heartbeat.interval.ms", 100, 15_000, 5_000)
                    .build());
    private MetadataImage image = MetadataImage.EMPTY;

    private AlterConfigResult incremental(ConfigResource resource, ConfigChange... ops) {
        ControllerResult<List<AlterConfigResult>> result =
                control.incrementalAlterConfigs(image, Map.of(resource, List.of(ops)));
        MetadataDelta delta = new MetadataDelta(image);
        result.records().forEach(delta::replay);
        image = delta.apply(image.offset() + result.records().size());
        return result.response().get(0);
    }

    @Test
    void aGroupsSettingsAreStoredAsGroupConfigRecordsAndDeletedKeyByKey() {
        AlterConfigResult set = incremental(
                GROUP,
                ConfigChange.set("consumer.session.timeout.ms", "3000"),
                ConfigChange.set("consumer.heartbeat.interval.ms", "500"));
        assertThat(set.error()).isEqualTo(Errors.NONE);
        assertThat(image.configs().configs(GROUP))
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("consumer.session.timeout.ms", "3000", "consumer.heartbeat.interval.ms", "500"));

        assertThat(incremental(GROUP, ConfigChange.delete("consumer.session.timeout.ms"))
                        .error())
                .isEqualTo(Errors.NONE);
        assertThat(image.configs().configs(GROUP))
                .containsExactlyEntriesOf(Map.of("consumer.heartbeat.interval.ms", "500"));
    }

    @Test
    void aValueOutsideTheBoundsIsRefusedAndNothingIsStored() {
        AlterConfigResult refused = incremental(GROUP, ConfigChange.set("consumer.session.timeout.ms", "500"));
        assertThat(refused.error()).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(refused.message())
                .isEqualTo("consumer.session.timeout.ms must be in the range 1000 to 60000 inclusive.");
        assertThat(image.configs().configs(GROUP)).isEmpty();
    }

    @Test
    void aSessionTimeoutNotAboveTheBrokerWideHeartbeatIntervalIsRefused() {
        AlterConfigResult refused = incremental(GROUP, ConfigChange.set("consumer.session.timeout.ms", "5000"));
        assertThat(refused.error()).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(refused.message())
                .isEqualTo("consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
        assertThat(incremental(
                                GROUP,
                                ConfigChange.set("consumer.session.timeout.ms", "5000"),
                                ConfigChange.set("consumer.heartbeat.interval.ms", "1000"))
                        .error())
                .isEqualTo(Errors.NONE);
    }

    @Test
    void unknownKeysEmptyNamesAndAppendsToScalarKeysGetKafkasErrors() {
        AlterConfigResult unknown = incremental(GROUP, ConfigChange.set("session.timeout.ms", "3000"));
        assertThat(unknown.error()).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(unknown.message()).isEqualTo("Unknown group config name: session.timeout.ms");
        assertThat(incremental(ConfigResource.group(""), ConfigChange.set("consumer.session.timeout.ms", "3000"))
                        .error())
                .isEqualTo(Errors.INVALID_REQUEST);
        AlterConfigResult append =
                incremental(GROUP, new ConfigChange("share.auto.offset.reset", ConfigChange.Op.APPEND, "earliest"));
        assertThat(append.error()).isEqualTo(Errors.INVALID_CONFIG);
        // APPEND is an operation on the list key (only its value is refused: Varve does not apply rack tags yet)
        AlterConfigResult tags = incremental(
                GROUP, new ConfigChange("streams.rack.aware.assignment.tags", ConfigChange.Op.APPEND, "zone,rack"));
        assertThat(tags.error()).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(tags.message()).startsWith("Varve does not apply streams.rack.aware.assignment.tags");
        assertThat(image.configs().configs(GROUP)).doesNotContainKey("streams.rack.aware.assignment.tags");
    }

    @Test
    void aGroupConfigRecordSurvivesTheMetadataLogsEncoding() {
        MetadataRecord record = new ConfigRecord(ConfigResourceType.GROUP, "g", "share.auto.offset.reset", "earliest");
        assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(record)))
                .isEqualTo(record);
    }
}

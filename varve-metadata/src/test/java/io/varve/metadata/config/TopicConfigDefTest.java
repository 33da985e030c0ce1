package io.varve.metadata.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TopicConfigDefTest {

    @Test
    void everyKafkaTopicConfigKeyIsDefinedWithAValidDefault() {
        assertThat(TopicConfigDef.keys().keySet())
                .contains(
                        "cleanup.policy",
                        "compression.type",
                        "delete.retention.ms",
                        "file.delete.delay.ms",
                        "flush.messages",
                        "flush.ms",
                        "index.interval.bytes",
                        "max.compaction.lag.ms",
                        "max.message.bytes",
                        "message.timestamp.type",
                        "message.timestamp.before.max.ms",
                        "message.timestamp.after.max.ms",
                        "min.cleanable.dirty.ratio",
                        "min.compaction.lag.ms",
                        "min.insync.replicas",
                        "preallocate",
                        "retention.bytes",
                        "retention.ms",
                        "segment.bytes",
                        "segment.index.bytes",
                        "segment.jitter.ms",
                        "segment.ms",
                        "unclean.leader.election.enable",
                        "local.retention.ms",
                        "local.retention.bytes",
                        "remote.storage.enable");
        assertThatCode(() -> TopicConfigDef.validate(TopicConfigDef.defaults())).doesNotThrowAnyException();
    }

    @Test
    void defaultsAreKafka4Defaults() {
        Map<String, String> defaults = TopicConfigDef.defaults();

        assertThat(defaults)
                .containsEntry("retention.ms", "604800000")
                .containsEntry("segment.bytes", "1073741824")
                .containsEntry("cleanup.policy", "delete")
                .containsEntry("message.timestamp.after.max.ms", "3600000")
                .containsEntry("max.message.bytes", "1048588")
                .containsEntry("local.retention.ms", "-2");
    }

    @Test
    void resolveReturnsTypedValuesWithOverridesApplied() {
        Map<String, Object> values = TopicConfigDef.resolve(Map.of(
                "retention.ms",
                " 1000 ",
                "cleanup.policy",
                "compact, delete",
                "min.cleanable.dirty.ratio",
                "0.1",
                "preallocate",
                "TRUE"));

        assertThat(values.get("retention.ms")).isEqualTo(1000L);
        assertThat(values.get("cleanup.policy")).isEqualTo(List.of("compact", "delete"));
        assertThat(values.get("min.cleanable.dirty.ratio")).isEqualTo(0.1);
        assertThat(values.get("preallocate")).isEqualTo(true);
        assertThat(values.get("segment.bytes")).isEqualTo(1073741824);
    }

    @Test
    void unknownConfigNameIsRejected() {
        assertThatThrownBy(() -> TopicConfigDef.validate(Map.of("retention.mss", "1")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("Unknown topic config name: retention.mss");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "retention.ms|abc|Not a number of type LONG",
                "retention.ms|-2|Value must be at least -1",
                "segment.bytes|1048575|Value must be at least 1048576",
                "segment.ms|0|Value must be at least 1",
                "min.insync.replicas|0|Value must be at least 1",
                "min.cleanable.dirty.ratio|1.5|Value must be in the range [0, 1]",
                "cleanup.policy|compact,forever|Invalid value forever in list",
                "cleanup.policy|delete,delete|Duplicate value delete",
                "compression.type|brotli|String must be one of",
                "compression.gzip.level|10|Value must be in the range [1, 9] or -1",
                "message.timestamp.type|createtime|String must be one of",
                "preallocate|yes|Expected value to be either true or false",
                "local.retention.ms|-3|Value must be at least -2",
                "follower.replication.throttled.replicas|0-1|partitionId:brokerId",
                "max.message.bytes|99999999999|Not a number of type INT",
            })
    void invalidValuesAreRejectedWithTheReason(String name, String value, String reason) {
        assertThatThrownBy(() -> TopicConfigDef.validate(Map.of(name, value)))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("Invalid value " + value + " for configuration " + name + ": ")
                .hasMessageContaining(reason);
    }

    @Test
    void boundaryValuesAreAccepted() {
        assertThatCode(() -> TopicConfigDef.validate(Map.of(
                        "segment.bytes",
                        "1048576",
                        "retention.ms",
                        "-1",
                        "compression.gzip.level",
                        "-1",
                        "cleanup.policy",
                        "",
                        "leader.replication.throttled.replicas",
                        "*",
                        "follower.replication.throttled.replicas",
                        "0:1,1:2",
                        "retention.bytes",
                        "-1")))
                .doesNotThrowAnyException();
    }

    @Test
    void minCompactionLagAboveMaxIsRejected() {
        assertThatThrownBy(() ->
                        TopicConfigDef.validate(Map.of("min.compaction.lag.ms", "10", "max.compaction.lag.ms", "5")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("min.compaction.lag.ms (10) > max.compaction.lag.ms (5)");
    }

    @Test
    void localRetentionMustNotExceedTotalRetentionWithRemoteStorage() {
        Map<String, String> configs = new HashMap<>(
                Map.of("remote.storage.enable", "true", "retention.ms", "1000", "local.retention.ms", "2000"));
        assertThatThrownBy(() -> TopicConfigDef.validate(configs))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("Value must not be more than retention.ms property value: 1000");

        configs.put("local.retention.ms", "500");
        assertThatCode(() -> TopicConfigDef.validate(configs)).doesNotThrowAnyException();
        configs.put("remote.storage.enable", "false");
        configs.put("local.retention.ms", "5000");
        assertThatCode(() -> TopicConfigDef.validate(configs)).doesNotThrowAnyException();
    }

    @Test
    void remoteStorageIsAllowedOnCompactedTopicsUnlikeKafka() {
        assertThatCode(() ->
                        TopicConfigDef.validate(Map.of("remote.storage.enable", "true", "cleanup.policy", "compact")))
                .doesNotThrowAnyException();
    }

    @Test
    void nullValueIsRejected() {
        Map<String, String> configs = new HashMap<>();
        configs.put("retention.ms", null);

        assertThatThrownBy(() -> TopicConfigDef.validate(configs)).isInstanceOf(InvalidConfigurationException.class);
    }

    @Test
    void downConversionKeyIsAcceptedAsADeprecatedNoOpAsInKafka4() {
        assertThatCode(() -> TopicConfigDef.validate(Map.of("message.downconversion.enable", "false")))
                .doesNotThrowAnyException();
        assertThat(TopicConfigDef.deprecatedNoOpKeys()).containsExactly("message.downconversion.enable");
    }
}

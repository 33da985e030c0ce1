package io.varve.metadata.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

class GroupConfigDefTest {
    private static final GroupConfigBounds BOUNDS = GroupConfigBounds.DEFAULTS;

    private static void valid(Map<String, String> configs) {
        assertThatCode(() -> GroupConfigDef.validate(configs, BOUNDS)).doesNotThrowAnyException();
    }

    private static void refused(Map<String, String> configs, String message) {
        assertThatThrownBy(() -> GroupConfigDef.validate(configs, BOUNDS))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage(message);
    }

    @Test
    void kafka44sGroupKeysAreKnownWithTheirTypesAndTheOffloadSwitchesAreInternal() {
        assertThat(GroupConfigDef.keys())
                .containsKeys(
                        "consumer.session.timeout.ms",
                        "consumer.heartbeat.interval.ms",
                        "share.auto.offset.reset",
                        "share.record.lock.duration.ms",
                        "share.isolation.level",
                        "streams.num.standby.replicas",
                        "streams.rack.aware.assignment.tags",
                        "errors.deadletterqueue.topic.name");
        assertThat(GroupConfigDef.keys()
                        .get("streams.acceptable.recovery.lag")
                        .key()
                        .type())
                .isEqualTo(ConfigType.LONG);
        assertThat(GroupConfigDef.keys().get("consumer.assignor.offload.enable").internal())
                .isTrue();
        assertThat(GroupConfigDef.isList("streams.rack.aware.assignment.tags")).isTrue();
        assertThat(GroupConfigDef.isList("share.auto.offset.reset")).isFalse();
    }

    @Test
    void valuesMustParseAndMeetTheKeysOwnLowerBound() {
        refused(
                Map.of("consumer.session.timeout.ms", "soon"),
                "Invalid value soon for configuration consumer.session.timeout.ms: Not a number of type INT");
        refused(
                Map.of("streams.num.standby.replicas", "-1"),
                "Invalid value -1 for configuration streams.num.standby.replicas: Value must be at least 0");
        refused(
                Map.of("share.isolation.level", "dirty"),
                "Invalid value dirty for configuration share.isolation.level: String must be one of: read_committed,"
                        + " read_uncommitted");
    }

    @Test
    void shareAutoOffsetResetTakesLatestEarliestOrANonNegativeDuration() {
        valid(Map.of("share.auto.offset.reset", "earliest"));
        valid(Map.of("share.auto.offset.reset", "latest"));
        valid(Map.of("share.auto.offset.reset", "by_duration:PT1H"));
        assertThatThrownBy(
                        () -> GroupConfigDef.validate(Map.of("share.auto.offset.reset", "by_duration:-PT1H"), BOUNDS))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("Negative duration");
        assertThatThrownBy(() -> GroupConfigDef.validate(Map.of("share.auto.offset.reset", "by_duration:soon"), BOUNDS))
                .isInstanceOf(InvalidConfigurationException.class);
        assertThatThrownBy(() -> GroupConfigDef.validate(Map.of("share.auto.offset.reset", "none"), BOUNDS))
                .isInstanceOf(InvalidConfigurationException.class);
    }

    @Test
    void brokerBoundsAreWordedAsKafkaWordsThem() {
        refused(
                Map.of("share.record.lock.duration.ms", "90000"),
                "share.record.lock.duration.ms must be in the range 15000 to 60000 inclusive.");
        refused(
                Map.of("streams.num.standby.replicas", "3"),
                "streams.num.standby.replicas must be less than or equal to 2");
        refused(
                Map.of("share.delivery.count.limit", "11"),
                "share.delivery.count.limit must be in the range 2 to 10 inclusive.");
        valid(Map.of("streams.num.standby.replicas", "2", "share.record.lock.duration.ms", "15000"));
    }

    @Test
    void aStreamsAssignorMustBeRegisteredAndADeadLetterTopicMustNotBeInternal() {
        valid(Map.of("streams.assignor.name", "sticky"));
        refused(
                Map.of("streams.assignor.name", "greedy"),
                "streams.assignor.name 'greedy' is not a registered task assignor. Registered assignors are: sticky.");
        refused(
                Map.of("errors.deadletterqueue.topic.name", "__dlq"),
                "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'");
    }

    @Test
    void aKeyVarveDoesNotApplyTakesOnlyItsDefault() {
        valid(Map.of("share.isolation.level", "read_uncommitted", "share.delivery.count.limit", "5"));
        refused(
                Map.of("share.isolation.level", "read_committed"),
                "Varve does not apply share.isolation.level to groups yet, so it takes only its default"
                        + " (read_uncommitted).");
        refused(
                Map.of("share.delivery.count.limit", "3"),
                "Varve does not apply share.delivery.count.limit to groups yet, so it takes only its default (5).");
        valid(Map.of("consumer.session.timeout.ms", "50000", "share.auto.offset.reset", "earliest"));
    }

    @Test
    void boundsClampEffectiveValuesIntoTheirRange() {
        GroupConfigBounds.Bound bound = new GroupConfigBounds.Bound(1000, 5000);
        assertThat(bound.clamp(10)).isEqualTo(1000);
        assertThat(bound.clamp(9000)).isEqualTo(5000);
        assertThat(bound.clamp(3000)).isEqualTo(3000);
        assertThat(GroupConfigBounds.Bound.atMost(2).clamp(7)).isEqualTo(2);
    }
}

package io.varve.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.config.BrokerConfig;
import io.varve.coordinator.group.GroupOverrides;
import io.varve.metadata.config.GroupConfigBounds;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.ConfigResourceType;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class GroupConfigResolverTest {
    private final AtomicReference<MetadataImage> image = new AtomicReference<>(MetadataImage.EMPTY);

    private void set(String group, String key, String value) {
        MetadataDelta delta = new MetadataDelta(image.get());
        delta.replay(new ConfigRecord(ConfigResourceType.GROUP, group, key, value));
        image.set(delta.apply(image.get().offset() + 1));
    }

    @Test
    void theBrokersBoundsComeFromItsGroupKeys() {
        GroupConfigBounds bounds = GroupConfigResolver.bounds(BrokerConfig.fromMap(Map.of(
                "group.consumer.min.session.timeout.ms", "2000",
                "group.consumer.session.timeout.ms", "30000",
                "group.streams.max.standby.replicas", "1")));
        assertThat(bounds.bound("consumer.session.timeout.ms")).isEqualTo(new GroupConfigBounds.Bound(2000, 60_000));
        assertThat(bounds.brokerDefault("consumer.session.timeout.ms", 0)).isEqualTo(30_000);
        assertThat(bounds.bound("streams.num.standby.replicas").max()).isEqualTo(1);
    }

    @Test
    void aGroupsValuesAreReadFromTheImageAndFollowItsChanges() {
        GroupConfigResolver resolver = new GroupConfigResolver(image::get, GroupConfigBounds.DEFAULTS);
        assertThat(resolver.forGroup("g")).isEqualTo(GroupOverrides.NONE);
        set("g", "consumer.session.timeout.ms", "50000");
        set("g", "share.auto.offset.reset", "earliest");
        GroupOverrides overrides = resolver.forGroup("g");
        assertThat(overrides.consumerSessionTimeoutMs()).isEqualTo(50_000);
        assertThat(overrides.shareAutoOffsetReset()).isEqualTo("earliest");
        assertThat(overrides.consumerHeartbeatIntervalMs()).isNull();
        set("g", "consumer.session.timeout.ms", "55000");
        assertThat(resolver.forGroup("g").consumerSessionTimeoutMs()).isEqualTo(55_000);
        assertThat(resolver.forGroup("other")).isEqualTo(GroupOverrides.NONE);
    }

    @Test
    void aValueOutsideThisBrokersBoundsIsCappedToThemAndTheStoredValueIsKept() {
        set("g", "consumer.session.timeout.ms", "59000");
        set("g", "streams.num.standby.replicas", "2");
        GroupConfigBounds narrower = GroupConfigBounds.builder()
                .sessionPair("consumer.session.timeout.ms", 45_000, 50_000, 45_000)
                .bound("streams.num.standby.replicas", Integer.MIN_VALUE, 1)
                .build();
        GroupOverrides overrides = new GroupConfigResolver(image::get, narrower).forGroup("g");
        assertThat(overrides.consumerSessionTimeoutMs()).isEqualTo(50_000);
        assertThat(overrides.streamsNumStandbyReplicas()).isEqualTo(1);
        assertThat(image.get().configs().configs(io.varve.metadata.image.ConfigResource.group("g")))
                .containsEntry("consumer.session.timeout.ms", "59000");
    }
}

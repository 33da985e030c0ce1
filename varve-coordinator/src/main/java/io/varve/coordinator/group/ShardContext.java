package io.varve.coordinator.group;

import io.varve.coordinator.group.offset.OffsetStore;
import io.varve.coordinator.runtime.Outbox;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What the protocol managers of one shard share: settings, the injected clock and id source, timers, the
 * outbox of the event being handled, every group by id and the committed offsets.
 */
public final class ShardContext {
    public final int partition;
    public final GroupCoordinatorConfig config;
    public final LongSupplier clock;
    public final Supplier<String> uuids;
    public final Timers timers = new Timers();
    public final Outbox outbox = new Outbox();
    public final Map<String, Group> groups = new HashMap<>();
    public final OffsetStore offsets = new OffsetStore();
    /** Each group's own settings over the broker-wide ones in {@link #config} and the share/streams configs. */
    public final GroupConfigLookup groupConfigs;

    public ShardContext(int partition, GroupCoordinatorConfig config, LongSupplier clock, Supplier<String> uuids) {
        this(partition, config, clock, uuids, GroupConfigLookup.NONE);
    }

    public ShardContext(
            int partition,
            GroupCoordinatorConfig config,
            LongSupplier clock,
            Supplier<String> uuids,
            GroupConfigLookup groupConfigs) {
        this.partition = partition;
        this.config = config;
        this.clock = clock;
        this.uuids = uuids;
        this.groupConfigs = groupConfigs;
    }

    /** The consumer-group session timeout of {@code groupId}: its own, else the broker-wide one. */
    public int consumerSessionTimeoutMs(String groupId) {
        return GroupOverrides.or(
                groupConfigs.forGroup(groupId).consumerSessionTimeoutMs(), config.consumerSessionTimeoutMs());
    }

    /** The consumer-group heartbeat interval of {@code groupId}: its own, else the broker-wide one. */
    public int consumerHeartbeatIntervalMs(String groupId) {
        return GroupOverrides.or(
                groupConfigs.forGroup(groupId).consumerHeartbeatIntervalMs(), config.consumerHeartbeatIntervalMs());
    }

    public long nowMs() {
        return clock.getAsLong();
    }
}

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

    public ShardContext(int partition, GroupCoordinatorConfig config, LongSupplier clock, Supplier<String> uuids) {
        this.partition = partition;
        this.config = config;
        this.clock = clock;
        this.uuids = uuids;
    }

    public long nowMs() {
        return clock.getAsLong();
    }
}

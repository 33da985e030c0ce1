package io.varve.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.varve.coordinator.group.record.CoordinatorRecord;

/**
 * Drives a shard the way the broker's runtime does: after every event the outbox is drained, its records are
 * appended to an in-memory "log" and the responses are released. Time only moves when a test advances the clock.
 */
public final class ShardHarness {
    public final AtomicLong clock = new AtomicLong(1_000_000);
    public final List<CoordinatorRecord> log = new ArrayList<>();
    private final GroupCoordinatorConfig config;
    private final AtomicInteger ids = new AtomicInteger();
    private GroupCoordinatorShard shard;

    public ShardHarness(GroupCoordinatorConfig config) {
        this.config = config;
        this.shard = newShard();
        shard.onLoadComplete();
        flush();
    }

    /** Defaults with no initial rebalance delay and a session timeout minimum tests can use. */
    public static GroupCoordinatorConfig testConfig() {
        return GroupCoordinatorConfig.defaults().withInitialRebalanceDelayMs(0).withSessionTimeoutBounds(1000, 60_000)
                .withConsumerTimeouts(10_000, 1000);
    }

    private GroupCoordinatorShard newShard() {
        return new GroupCoordinatorShard(0, config, clock::get, () -> "id" + ids.incrementAndGet());
    }

    public GroupCoordinatorShard shard() {
        return shard;
    }

    /** Runs an event that must answer at once, and returns its answer. */
    public <T> T call(Function<GroupCoordinatorShard, CompletableFuture<T>> event) {
        CompletableFuture<T> f = start(event);
        assertThat(f).as("the event answers at once").isDone();
        return f.join();
    }

    /** Runs an event whose answer may come later (a JoinGroup waiting for the rebalance). */
    public <T> CompletableFuture<T> start(Function<GroupCoordinatorShard, CompletableFuture<T>> event) {
        CompletableFuture<T> f = event.apply(shard);
        flush();
        return f;
    }

    public void advance(long ms) {
        clock.addAndGet(ms);
        shard.tick();
        flush();
    }

    private void flush() {
        Outbox.Output out = shard.drain();
        log.addAll(out.records());
        out.complete();
    }

    /** Replaces the shard by one loaded from the log, as after a broker restart. */
    public GroupCoordinatorShard reload() {
        shard = newShard();
        log.forEach(shard::replay);
        shard.onLoadComplete();
        flush();
        return shard;
    }
}

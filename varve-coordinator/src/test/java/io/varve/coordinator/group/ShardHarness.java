package io.varve.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.coordinator.group.share.ShareGroupConfig;
import io.varve.coordinator.group.streams.StreamsGroupConfig;
import io.varve.coordinator.runtime.Outbox;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Drives a shard the way the broker's runtime does: after every event the outbox is drained, its records are
 * appended to an in-memory "log" and the responses are released. Time only moves when a test advances the clock.
 */
public final class ShardHarness {
    /** One entry of the in-memory partition log: a record (with its transactional producer) or a marker. */
    public sealed interface Entry {}

    /** {@code producerId} is {@link Outbox#NO_PRODUCER_ID} for a plain record. */
    public record Data(CoordinatorRecord record, long producerId, short producerEpoch) implements Entry {}

    public record Marker(long producerId, boolean commit) implements Entry {}

    public final AtomicLong clock = new AtomicLong(1_000_000);
    /** The records written, in order. */
    public final List<CoordinatorRecord> log = new ArrayList<>();
    /** The partition log as the broker writes it, markers included. */
    public final List<Entry> entries = new ArrayList<>();

    private final GroupCoordinatorConfig config;
    private final StreamsGroupConfig streamsConfig;
    private final GroupConfigLookup groupConfigs;
    private final AtomicInteger ids = new AtomicInteger();
    private GroupCoordinatorShard shard;

    public ShardHarness(GroupCoordinatorConfig config) {
        this(config, testStreamsConfig());
    }

    public ShardHarness(GroupCoordinatorConfig config, StreamsGroupConfig streamsConfig) {
        this(config, streamsConfig, GroupConfigLookup.NONE);
    }

    /** @param groupConfigs each group's own settings (group configs) */
    public ShardHarness(
            GroupCoordinatorConfig config, StreamsGroupConfig streamsConfig, GroupConfigLookup groupConfigs) {
        this.config = config;
        this.streamsConfig = streamsConfig;
        this.groupConfigs = groupConfigs;
        this.shard = newShard();
        shard.onLoadComplete();
        flush();
    }

    /** Defaults with no initial rebalance delay and a session timeout minimum tests can use. */
    public static GroupCoordinatorConfig testConfig() {
        return GroupCoordinatorConfig.defaults()
                .withInitialRebalanceDelayMs(0)
                .withSessionTimeoutBounds(1000, 60_000)
                .withConsumerTimeouts(10_000, 1000);
    }

    /** Kafka's streams group defaults without the initial rebalance delay (tests of the delay set their own). */
    public static StreamsGroupConfig testStreamsConfig() {
        return StreamsGroupConfig.defaults().withInitialRebalanceDelayMs(0);
    }

    private GroupCoordinatorShard newShard() {
        return new GroupCoordinatorShard(
                0,
                config,
                ShareGroupConfig.defaults(),
                streamsConfig,
                clock::get,
                () -> "id" + ids.incrementAndGet(),
                groupConfigs);
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
        for (Outbox.Write w : out.writes()) {
            for (CoordinatorRecord r : w.records()) {
                log.add(r);
                entries.add(new Data(r, w.producerId(), w.producerEpoch()));
            }
        }
        out.complete();
    }

    /** The transaction coordinator writes the producer's marker to this partition and tells the shard. */
    public void writeMarker(long producerId, boolean commit) {
        entries.add(new Marker(producerId, commit));
        call(s -> s.onTransactionCompleted(producerId, commit));
    }

    /** Replaces the shard by one loaded from the log, as after a broker restart. */
    public GroupCoordinatorShard reload() {
        shard = newShard();
        for (Entry e : entries) {
            if (e instanceof Data d) {
                shard.replay(d.record(), d.producerId());
            } else if (e instanceof Marker m) {
                shard.replayTransactionMarker(m.producerId(), m.commit());
            }
        }
        shard.onLoadComplete();
        flush();
        return shard;
    }
}

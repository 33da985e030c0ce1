package io.varve.broker.replica.fetcher;

import io.varve.storage.progress.ProgressReporter;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/**
 * Progress lines of partitions whose follower log is behind the leader's high watermark: from the first fetch that
 * finds it behind until it reaches the high watermark, a line every few seconds with the offsets fetched, percent and
 * rate. A follower that catches up within one interval writes nothing. Confined to its fetcher's thread; holds one
 * entry per partition that is behind, none for those that are caught up.
 */
final class FollowerCatchUp {
    private record Behind(long startEndOffset, ProgressReporter progress) {}

    private final int leaderId;
    private final LongSupplier clockMs;
    private final long intervalMs;
    private final Consumer<String> sink;
    private final Map<TopicPartition, Behind> behind = new HashMap<>();

    FollowerCatchUp(int leaderId, LongSupplier clockMs, long intervalMs, Consumer<String> sink) {
        this.leaderId = leaderId;
        this.clockMs = clockMs;
        this.intervalMs = intervalMs;
        this.sink = sink;
    }

    /** After a fetch of {@code tp} was appended: the follower's log end and the leader's high watermark. */
    void fetched(TopicPartition tp, long followerEndOffset, long leaderHighWatermark) {
        Behind b = behind.get(tp);
        if (b == null) {
            if (leaderHighWatermark > followerEndOffset) {
                behind.put(
                        tp,
                        new Behind(
                                followerEndOffset,
                                ProgressReporter.start(
                                        "Follower of " + tp + " catching up with leader " + leaderId,
                                        leaderHighWatermark - followerEndOffset,
                                        "offsets",
                                        clockMs,
                                        intervalMs,
                                        sink)));
            }
            return;
        }
        b.progress()
                .progressTo(
                        followerEndOffset - b.startEndOffset(), Math.max(0, leaderHighWatermark - b.startEndOffset()));
        if (followerEndOffset >= leaderHighWatermark) {
            b.progress().finish();
            behind.remove(tp);
        }
    }

    /** Partitions being reported (tests). */
    int behindCount() {
        return behind.size();
    }
}

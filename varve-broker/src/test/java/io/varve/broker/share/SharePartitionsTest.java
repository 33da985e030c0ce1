package io.varve.broker.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.share.ShareGroupConfig;
import io.varve.coordinator.share.AcknowledgeType;
import io.varve.coordinator.share.SharePartition;
import io.varve.storage.LogConfig;
import io.varve.storage.LogManager;
import io.varve.storage.LogManagerConfig;
import io.varve.storage.PartitionLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SharePartitions against a store with the coordinator's epoch checks: what a leadership move keeps. */
class SharePartitionsTest {
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final SharePartitionKey KEY = new SharePartitionKey("g", TOPIC_ID, 0);
    private static final ShareGroupConfig CONFIG = ShareGroupConfig.defaults();

    @TempDir
    Path dir;

    private LogManager logs;
    private PartitionLog partitionLog;
    private final AtomicLong clock = new AtomicLong(1_000);
    private final ShareStateStore store = ShareStateStore.inMemory();

    @BeforeEach
    void openLog() {
        logs = new LogManager(
                List.of(dir), LogConfig.defaults(), LogManagerConfig.defaults().withoutBackgroundTasks(), clock::get);
        partitionLog = logs.getOrCreateLog(new TopicPartition("t", 0), TOPIC_ID, LogConfig.defaults());
        for (int i = 0; i < 10; i++) {
            partitionLog.appendAsLeader(
                    MemoryRecords.withRecords(
                                    Compression.NONE, new SimpleRecord(("r" + i).getBytes(StandardCharsets.UTF_8)))
                            .buffer(),
                    0,
                    clock.get());
        }
        partitionLog.updateHighWatermark(partitionLog.logEndOffset());
    }

    @AfterEach
    void close() {
        logs.close();
    }

    private SharePartitions leaderAt(int leaderEpoch) {
        return new SharePartitions(CONFIG, store, groupId -> true, clock::get, key -> leaderEpoch);
    }

    private static List<SharePartitions.AckBatch> accept(long first, long last) {
        return List.of(new SharePartitions.AckBatch(first, last, List.of(AcknowledgeType.ACCEPT.code())));
    }

    @Test
    void aNewLeaderRedeliversOnlyWhatTheOldOneDidNotHaveAcknowledged() throws Exception {
        SharePartitions old = leaderAt(1);
        assertThat(old.fetch(KEY, partitionLog, "m1", 100, Integer.MAX_VALUE).acquired())
                .containsExactly(new SharePartition.AcquiredRange(0, 9, 1));
        assertThat(old.acknowledge(KEY, partitionLog, "m1", accept(0, 4)).get(5, TimeUnit.SECONDS))
                .isEqualTo(Errors.NONE);

        SharePartitions successor = leaderAt(2);
        assertThat(successor
                        .fetch(KEY, partitionLog, "m2", 100, Integer.MAX_VALUE)
                        .acquired())
                .as("offsets 5-9 again, on their second delivery; 0-4 stay acknowledged")
                .containsExactly(new SharePartition.AcquiredRange(5, 9, 2));
    }

    @Test
    void theDeposedLeadersAcknowledgementIsFencedAndItsStateDropped() throws Exception {
        SharePartitions old = leaderAt(1);
        old.fetch(KEY, partitionLog, "m1", 100, Integer.MAX_VALUE);
        SharePartitions successor = leaderAt(2);
        successor.fetch(KEY, partitionLog, "m2", 100, Integer.MAX_VALUE);

        CompletableFuture<Errors> late = old.acknowledge(KEY, partitionLog, "m1", accept(0, 9));
        assertThat(late.get(5, TimeUnit.SECONDS)).isEqualTo(Errors.FENCED_LEADER_EPOCH);
        assertThat(successor.acknowledge(KEY, partitionLog, "m2", accept(0, 9)).get(5, TimeUnit.SECONDS))
                .as("the successor's state is untouched by the deposed leader's write")
                .isEqualTo(Errors.NONE);
        assertThat(successor.offsets(KEY, partitionLog)).isEqualTo(new SharePartitions.Offsets(10, 0));
    }

    @Test
    void aResetOffsetFencesTheStateReadBeforeAndTheNextFetchStartsThere() throws Exception {
        SharePartitions leader = leaderAt(1);
        leader.fetch(KEY, partitionLog, "m1", 100, Integer.MAX_VALUE);
        leader.acknowledge(KEY, partitionLog, "m1", accept(0, 9)).get(5, TimeUnit.SECONDS);
        leader.resetStartOffset(KEY, 3);
        assertThat(leader.fetch(KEY, partitionLog, "m1", 100, Integer.MAX_VALUE).acquired())
                .containsExactly(new SharePartition.AcquiredRange(3, 9, 1));
    }

    @Test
    void offsetsOfAPartitionNotLoadedHereComeFromTheCoordinatorsSummary() throws Exception {
        SharePartitions leader = leaderAt(1);
        leader.fetch(KEY, partitionLog, "m1", 100, Integer.MAX_VALUE);
        leader.acknowledge(KEY, partitionLog, "m1", accept(0, 2)).get(5, TimeUnit.SECONDS);
        SharePartitions other = leaderAt(1);
        assertThat(other.offsets(KEY, partitionLog)).isEqualTo(new SharePartitions.Offsets(3, 7));
        assertThat(other.offsets(new SharePartitionKey("nobody", TOPIC_ID, 0), partitionLog))
                .isEqualTo(new SharePartitions.Offsets(-1, -1));
    }

    @Test
    void aDeletedGroupStartsAfreshWhenItComesBack() throws Exception {
        SharePartitions leader = leaderAt(1);
        leader.fetch(KEY, partitionLog, "m1", 100, Integer.MAX_VALUE);
        leader.acknowledge(KEY, partitionLog, "m1", accept(0, 4)).get(5, TimeUnit.SECONDS);
        leader.deleteGroup("g", List.of(KEY, new SharePartitionKey("g", Uuid.randomUuid(), 3)));
        assertThat(store.keys("g")).isEmpty();
        assertThat(leaderAt(1)
                        .fetch(KEY, partitionLog, "m2", 100, Integer.MAX_VALUE)
                        .acquired())
                .containsExactly(new SharePartition.AcquiredRange(0, 9, 1));
    }
}

package io.varve.storage;

import static io.varve.storage.LogTestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.batch.OffsetOverlapException;
import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import io.varve.storage.segment.AbortedTxn;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A follower's appends: batches copied from a leader keep their offsets, epochs and producer fields. */
class PartitionLogFollowerTest {

    private static final TopicPartition TP = new TopicPartition("replicated", 0);
    private static final long NOW_MS = 1_800_000_000_000L;

    @TempDir
    Path root;

    private final Uuid topicId = Uuid.randomUuid();
    private LogManager manager;

    @BeforeEach
    void start() {
        open();
    }

    private void open() {
        manager = new LogManager(
                List.of(root),
                LogConfig.defaults(),
                LogManagerConfig.defaults().withoutBackgroundTasks(),
                () -> NOW_MS);
    }

    @AfterEach
    void stop() {
        manager.close();
    }

    private PartitionLog log(LogConfig config) {
        return manager.getOrCreateLog(TP, topicId, config);
    }

    private PartitionLog log() {
        return log(LogConfig.defaults());
    }

    @Test
    void followerAppendKeepsTheLeadersOffsetsAndStartsEachNewEpochAtItsFirstBatch() {
        PartitionLog log = log();
        FollowerAppendResult first = log.appendAsFollower(TestBatches.concat(
                TestBatches.asReplicated(TestBatches.batch("a", 3), 0, 4),
                TestBatches.asReplicated(TestBatches.batch("b", 2), 3, 4)));
        FollowerAppendResult second = log.appendAsFollower(TestBatches.asReplicated(TestBatches.batch("c", 2), 5, 6));

        assertThat(first).isEqualTo(new FollowerAppendResult(0, 4, 2, first.validBytes(), 5));
        assertThat(second.firstOffset()).isEqualTo(5);
        assertThat(second.logEndOffset()).isEqualTo(7);
        assertThat(log.logEndOffset()).isEqualTo(7);
        assertThat(log.leaderEpochEntries()).containsExactly(new EpochEntry(4, 0), new EpochEntry(6, 5));
        assertThat(readAll(log)).containsExactly("0:a-0", "1:a-1", "2:a-2", "3:b-0", "4:b-1", "5:c-0", "6:c-1");
        List<MutableRecordBatch> stored = TestBatches.batches(
                log.read(5, Integer.MAX_VALUE, Long.MAX_VALUE, true).records());
        assertThat(stored.get(0).partitionLeaderEpoch()).isEqualTo(6);
        assertThat(log.highWatermark())
                .as("only the replica layer moves a follower's high watermark")
                .isZero();
    }

    @Test
    void followerAppendsOnlyTheWholeBatchesOfASetCutByTheFetchByteLimit() {
        PartitionLog log = log();
        ByteBuffer whole = TestBatches.concat(
                TestBatches.asReplicated(TestBatches.batch("a", 2), 0, 1),
                TestBatches.asReplicated(TestBatches.batch("b", 2), 2, 1));
        int firstBatchBytes = TestBatches.batches(whole).get(0).sizeInBytes();
        ByteBuffer cut = whole.duplicate().limit(whole.limit() - 7);

        FollowerAppendResult result = log.appendAsFollower(cut);

        assertThat(result.batchCount()).isEqualTo(1);
        assertThat(result.validBytes()).isEqualTo(firstBatchBytes);
        assertThat(log.logEndOffset()).isEqualTo(2);
        assertThat(log.appendAsFollower(whole.duplicate().position(firstBatchBytes))
                        .logEndOffset())
                .isEqualTo(4);
        assertThat(log.appendAsFollower(ByteBuffer.allocate(0)).appendedNothing())
                .isTrue();
    }

    @Test
    void followerAppendBelowTheLogEndOffsetIsRefusedAndChangesNothing() {
        PartitionLog log = log();
        log.appendAsFollower(TestBatches.asReplicated(TestBatches.batch("a", 3), 0, 1));
        long sizeBefore = log.sizeBytes();

        assertThatThrownBy(() -> log.appendAsFollower(TestBatches.asReplicated(TestBatches.batch("b", 2), 2, 1)))
                .isInstanceOf(OffsetOverlapException.class)
                .hasMessageContaining("below the log end offset 3");
        ByteBuffer overlappingWithin = TestBatches.concat(
                TestBatches.asReplicated(TestBatches.batch("c", 2), 3, 1),
                TestBatches.asReplicated(TestBatches.batch("d", 2), 4, 1));
        assertThatThrownBy(() -> log.appendAsFollower(overlappingWithin)).isInstanceOf(OffsetOverlapException.class);

        assertThat(log.logEndOffset()).isEqualTo(3);
        assertThat(log.sizeBytes()).isEqualTo(sizeBefore);
        assertThat(log.isOffline()).isFalse();
    }

    @Test
    void followerAppendAcceptsTheGapsCompactionLeftOnTheLeader() {
        PartitionLog log = log();
        log.appendAsFollower(TestBatches.concat(
                TestBatches.asReplicated(TestBatches.batch("a", 2), 0, 1),
                TestBatches.asReplicated(TestBatches.batch("b", 1), 10, 1)));

        assertThat(log.logEndOffset()).isEqualTo(11);
        assertThat(readAll(log)).containsExactly("0:a-0", "1:a-1", "10:b-0");
        log.appendAsFollower(TestBatches.asReplicated(TestBatches.batch("c", 1), 20, 1));
        assertThat(log.logEndOffset()).isEqualTo(21);
    }

    @Test
    void followerAppendRefusesACorruptBatchAndWritesNothing() {
        PartitionLog log = log();
        ByteBuffer corrupt = TestBatches.asReplicated(TestBatches.batch("a", 2), 0, 1);
        corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 1));

        assertThatThrownBy(() -> log.appendAsFollower(corrupt)).isInstanceOf(CorruptRecordException.class);
        assertThat(log.logEndOffset()).isZero();
        assertThat(log.isOffline()).isFalse();
    }

    @Test
    void aFollowerPromotedToLeaderDeduplicatesAnIdempotentRetry() {
        PartitionLog log = log();
        ByteBuffer sent = TestBatches.idempotent(42, (short) 0, 0, 3);
        log.appendAsFollower(TestBatches.concat(
                TestBatches.asReplicated(TestBatches.batch("x", 2), 0, 1), TestBatches.asReplicated(sent, 2, 1)));

        AppendResult retry = log.appendAsLeader(TestBatches.idempotent(42, (short) 0, 0, 3), 2, NOW_MS);

        assertThat(retry.duplicate()).isTrue();
        assertThat(retry.baseOffset()).isEqualTo(2);
        assertThat(retry.lastOffset()).isEqualTo(4);
        assertThat(log.appendAsLeader(TestBatches.idempotent(42, (short) 0, 3, 1), 2, NOW_MS)
                        .baseOffset())
                .as("the next sequence continues where the leader's producer was")
                .isEqualTo(5);
    }

    @Test
    void aFollowerKnowsOpenTransactionsAndIndexesTheAbortedOnes() {
        PartitionLog log = log();
        log.appendAsFollower(TestBatches.concat(
                TestBatches.asReplicated(TestBatches.transactionalAt(10, (short) 0, 0, "t", 2, NOW_MS), 0, 1),
                TestBatches.asReplicated(TestBatches.transactionalAt(11, (short) 0, 0, "u", 1, NOW_MS), 2, 1),
                TestBatches.asReplicated(TestBatches.marker(10, (short) 0, 0, false, NOW_MS), 3, 1)));
        log.updateHighWatermark(log.logEndOffset());

        assertThat(log.lastStableOffset())
                .as("producer 11's transaction is still open")
                .isEqualTo(2);
        assertThat(log.abortedTransactions(0, 4)).containsExactly(new AbortedTxn(10, 0, 3, 2));

        log.appendAsFollower(TestBatches.asReplicated(TestBatches.marker(11, (short) 0, 0, true, NOW_MS), 4, 1));
        log.updateHighWatermark(log.logEndOffset());
        assertThat(log.lastStableOffset()).isEqualTo(5);
    }

    @Test
    void followerAppendRollsSegmentsBySegmentBytes() {
        PartitionLog log = log(LogConfig.builder().segmentBytes(400).build());
        ByteBuffer[] parts = new ByteBuffer[6];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = TestBatches.asReplicated(TestBatches.batchOfSize("r" + i, 1, 120), i, 1);
        }

        log.appendAsFollower(TestBatches.concat(parts));

        assertThat(log.segmentCount()).isGreaterThan(1);
        assertThat(log.segmentBaseOffsets().get(1)).isPositive();
        assertThat(readAll(log)).hasSize(6);
    }

    @Test
    void followerStateSurvivesACrashAndRestart() throws Exception {
        PartitionLog log = log();
        log.appendAsFollower(TestBatches.concat(
                TestBatches.asReplicated(TestBatches.idempotent(42, (short) 0, 0, 2), 0, 3),
                TestBatches.asReplicated(TestBatches.batch("b", 2), 2, 5)));
        manager.close();
        LogTestSupport.forgetCleanShutdown(List.of(root));
        open();
        PartitionLog reopened = log();

        assertThat(reopened.logEndOffset()).isEqualTo(4);
        assertThat(reopened.leaderEpochEntries()).containsExactly(new EpochEntry(3, 0), new EpochEntry(5, 2));
        assertThat(reopened.producerStates()).containsKey(42L);
    }
}

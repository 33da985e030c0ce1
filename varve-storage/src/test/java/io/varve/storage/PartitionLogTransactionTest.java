package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.checkpoint.OffsetCheckpointFile;
import io.varve.storage.segment.AbortedTxn;
import io.varve.storage.segment.SegmentFiles;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.TransactionCoordinatorFencedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Transactions in the partition log: coordinator markers, the last stable offset, the aborted-transaction index. */
class PartitionLogTransactionTest {

    private static final TopicPartition TP = new TopicPartition("txns", 0);
    private static final int LEADER_EPOCH = 3;
    private static final long NOW_MS = 1_800_000_000_000L;
    private static final short EPOCH = 0;

    @TempDir
    Path root;

    private final Uuid topicId = Uuid.randomUuid();
    private long clockMs = NOW_MS;
    private LogManager manager;
    private PartitionLog log;

    @BeforeEach
    void start() {
        open();
    }

    @AfterEach
    void stop() {
        manager.close();
    }

    private void open() {
        manager = new LogManager(
                List.of(root),
                LogConfig.defaults(),
                LogManagerConfig.defaults().withoutBackgroundTasks(),
                () -> clockMs);
        log = manager.getOrCreateLog(TP, topicId, LogConfig.defaults());
    }

    private AppendResult data(long producerId, int sequence, int count) {
        return append(
                TestBatches.transactionalAt(
                        producerId, EPOCH, sequence, "p" + producerId + "s" + sequence, count, NOW_MS),
                AppendOrigin.CLIENT);
    }

    private AppendResult marker(long producerId, short epoch, int coordinatorEpoch, boolean commit) {
        return append(
                TestBatches.marker(producerId, epoch, coordinatorEpoch, commit, NOW_MS), AppendOrigin.COORDINATOR);
    }

    /** False to leave the high watermark behind (it never goes back), as while followers catch up. */
    private boolean highWatermarkFollowsAppends = true;

    private AppendResult append(ByteBuffer batches, AppendOrigin origin) {
        AppendResult result = log.appendAsLeader(batches, LEADER_EPOCH, NOW_MS, origin);
        if (highWatermarkFollowsAppends) {
            log.updateHighWatermark(log.logEndOffset());
        }
        return result;
    }

    @Test
    void clientsMayNotWriteControlBatches() {
        assertThatThrownBy(() -> append(TestBatches.marker(1, EPOCH, 0, true, NOW_MS), AppendOrigin.CLIENT))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("control batch");
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void aCoordinatorControlBatchMustBeATransactionalMarkerOfAProducer() {
        ByteBuffer notTransactional = TestBatches.batch("a", 1);
        notTransactional.putShort(RecordBatchV2.ATTRIBUTES_OFFSET, (short)
                (notTransactional.getShort(RecordBatchV2.ATTRIBUTES_OFFSET) | RecordBatchV2.CONTROL_MASK));
        notTransactional.putInt(RecordBatchV2.CRC_OFFSET, (int)
                RecordBatchV2.computeCrc(notTransactional, 0, RecordBatchV2.sizeBytes(notTransactional, 0)));
        assertThatThrownBy(() -> append(notTransactional, AppendOrigin.COORDINATOR))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("transactional");
        ByteBuffer twoRecords = TestBatches.transactionalAt(1, EPOCH, 0, "x", 2, NOW_MS);
        twoRecords.putShort(RecordBatchV2.ATTRIBUTES_OFFSET, (short)
                (twoRecords.getShort(RecordBatchV2.ATTRIBUTES_OFFSET) | RecordBatchV2.CONTROL_MASK));
        twoRecords.putInt(RecordBatchV2.CRC_OFFSET, (int)
                RecordBatchV2.computeCrc(twoRecords, 0, RecordBatchV2.sizeBytes(twoRecords, 0)));
        assertThatThrownBy(() -> append(twoRecords, AppendOrigin.COORDINATOR))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("2 records");
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void aCommitMarkerEndsTheTransactionAndTheLastStableOffsetCatchesUp() {
        data(1, 0, 3);
        assertThat(log.lastStableOffset()).as("open transaction from offset 0").isZero();
        assertThat(log.producerStates().get(1L).currentTxnFirstOffset()).isZero();
        data(1, 3, 2);
        assertThat(log.lastStableOffset()).isZero();

        AppendResult marker = marker(1, EPOCH, 5, true);

        assertThat(marker.baseOffset()).isEqualTo(5);
        assertThat(log.lastStableOffset()).isEqualTo(6).isEqualTo(log.highWatermark());
        assertThat(log.producerStates().get(1L).hasOngoingTxn()).isFalse();
        assertThat(log.producerStates().get(1L).coordinatorEpoch()).isEqualTo(5);
        assertThat(log.abortedTransactions(0, 6)).isEmpty();
        assertThat(log.rolledSegments()).isEmpty();
    }

    @Test
    void theLastStableOffsetIsTheFirstOffsetOfTheOldestOpenTransaction() {
        data(1, 0, 2); // 0-1
        data(2, 0, 2); // 2-3
        append(TestBatches.batch("plain", 2), AppendOrigin.CLIENT); // 4-5
        assertThat(log.lastStableOffset()).isZero();
        marker(1, EPOCH, 0, true); // 6
        assertThat(log.lastStableOffset()).isEqualTo(2);
        marker(2, EPOCH, 0, false); // 7
        assertThat(log.lastStableOffset()).isEqualTo(8);
        data(1, 2, 1); // 8: a new transaction of producer 1
        assertThat(log.lastStableOffset()).isEqualTo(8);
        highWatermarkFollowsAppends = false;
        marker(1, EPOCH, 0, true); // 9: ends it, but the high watermark stays at 9
        assertThat(log.lastStableOffset()).as("never above the high watermark").isEqualTo(9);
    }

    @Test
    void anAbortIsIndexedWithItsRangeAndTheLastStableOffsetAfterIt() throws Exception {
        data(1, 0, 2); // 0-1
        data(2, 0, 3); // 2-4
        data(1, 2, 1); // 5
        marker(1, EPOCH, 0, false); // 6: aborts [0, 6]; producer 2 still open from 2

        assertThat(log.abortedTransactions(0, 7)).containsExactly(new AbortedTxn(1, 0, 6, 2));
        assertThat(log.abortedTransactions(6, 7))
                .as("the marker is the transaction's last offset")
                .hasSize(1);
        assertThat(log.abortedTransactions(7, 8)).isEmpty();
        Path txnIndex = log.dir().resolve(SegmentFiles.fileName(0, SegmentFiles.TXN_INDEX_SUFFIX));
        assertThat(Files.size(txnIndex)).isEqualTo(34);
        marker(2, EPOCH, 0, false); // 7: aborts [2, 7]
        assertThat(log.abortedTransactions(3, 4))
                .containsExactly(new AbortedTxn(1, 0, 6, 2), new AbortedTxn(2, 2, 7, 8));
    }

    @Test
    void aMarkerForAProducerWithoutDataHereEndsAnEmptyTransaction() {
        append(TestBatches.batch("plain", 2), AppendOrigin.CLIENT);
        marker(9, EPOCH, 0, false);
        assertThat(log.abortedTransactions(0, 3)).containsExactly(new AbortedTxn(9, 2, 2, 3));
        assertThat(log.lastStableOffset()).isEqualTo(3);
    }

    @Test
    void aMarkerOlderThanTheProducerEpochIsRefused() {
        append(TestBatches.transactionalAt(1, (short) 4, 0, "x", 1, NOW_MS), AppendOrigin.CLIENT);
        assertThatThrownBy(() -> marker(1, (short) 3, 0, true)).isInstanceOf(InvalidProducerEpochException.class);
        assertThat(log.lastStableOffset()).isZero();
        marker(1, (short) 5, 0, false); // an epoch bump by the coordinator is fine
        assertThat(log.lastStableOffset()).isEqualTo(2);
        assertThat(log.producerStates().get(1L).producerEpoch()).isEqualTo((short) 5);
    }

    @Test
    void aMarkerFromAnOlderCoordinatorEpochIsFenced() {
        data(1, 0, 1);
        marker(1, EPOCH, 7, true);
        data(1, 1, 1);
        assertThatThrownBy(() -> marker(1, EPOCH, 6, false)).isInstanceOf(TransactionCoordinatorFencedException.class);
        assertThat(log.lastStableOffset()).isEqualTo(2);
        marker(1, EPOCH, 7, false);
        assertThat(log.lastStableOffset()).isEqualTo(4);
    }

    @Test
    void aNonTransactionalBatchDuringTheProducersTransactionIsRefused() {
        data(1, 0, 1);
        assertThatThrownBy(() -> append(TestBatches.idempotentAt(1, EPOCH, 1, 1, NOW_MS), AppendOrigin.CLIENT))
                .isInstanceOf(InvalidTxnStateException.class);
    }

    @Test
    void openTransactionsAndAbortsSurviveACleanRestart() {
        data(1, 0, 2);
        marker(1, EPOCH, 0, false);
        data(2, 0, 2);
        manager.close();
        open();
        assertThat(log.lastStableOffset()).isEqualTo(3);
        assertThat(log.abortedTransactions(0, 3)).containsExactly(new AbortedTxn(1, 0, 2, 3));
        marker(2, EPOCH, 0, true);
        assertThat(log.lastStableOffset()).isEqualTo(6);
    }

    @Test
    void aCrashRebuildsTheTransactionIndexAndTheOpenTransactionsFromTheLog() throws Exception {
        data(1, 0, 2); // 0-1
        log.roll();
        data(2, 0, 1); // 2
        marker(1, EPOCH, 0, false); // 3 in segment 2
        data(1, 2, 1); // 4: producer 1's next transaction
        manager.close();
        // a crash with nothing known durable: no recovery point, no snapshot, the index entry lost
        LogTestSupport.forgetCleanShutdown(List.of(root));
        Files.delete(root.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE));
        Files.delete(log.dir().resolve(SegmentFiles.fileName(2, SegmentFiles.TXN_INDEX_SUFFIX)));
        for (Path snapshot : Files.list(log.dir())
                .filter(p -> p.toString().endsWith(".snapshot"))
                .toList()) {
            Files.delete(snapshot);
        }
        open();
        assertThat(log.lastStableOffset()).isEqualTo(2);
        assertThat(log.abortedTransactions(0, 5)).containsExactly(new AbortedTxn(1, 0, 3, 2));
        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 2L);
    }

    @Test
    void theTransactionIndexGoesWithItsSegment() throws Exception {
        data(1, 0, 1);
        marker(1, EPOCH, 0, false);
        log.roll();
        append(TestBatches.batch("after", 1), AppendOrigin.CLIENT);
        Path txnIndex = log.dir().resolve(SegmentFiles.fileName(0, SegmentFiles.TXN_INDEX_SUFFIX));
        assertThat(txnIndex).exists();
        assertThat(manager.getLog(TP).orElseThrow().rolledSegments().get(0).txnIndexFile())
                .contains(txnIndex);

        log.deleteRecordsBefore(PartitionLog.HIGH_WATERMARK);

        assertThat(txnIndex).doesNotExist();
        assertThat(txnIndex.resolveSibling(txnIndex.getFileName() + SegmentFiles.DELETED_SUFFIX))
                .exists();
        log.deleteRetiredSegments(clockMs + LogConfig.defaults().fileDeleteDelayMs());
        assertThat(Files.list(log.dir()).filter(p -> p.toString().contains(SegmentFiles.TXN_INDEX_SUFFIX)))
                .isEmpty();
        assertThat(log.abortedTransactions(2, 3)).isEmpty();
    }
}

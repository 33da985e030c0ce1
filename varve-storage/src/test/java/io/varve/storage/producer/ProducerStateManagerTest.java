package io.varve.storage.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.junit.jupiter.api.Test;

class ProducerStateManagerTest {

    private static final long PID = 1000L;
    private final ProducerStateManager state = new ProducerStateManager();
    private long nextOffset = 0;

    /** Checks and commits a batch of {@code count} records; returns the original on a duplicate. */
    private Optional<BatchMetadata> append(long pid, int epoch, int firstSeq, int count) {
        ProducerStateManager.PendingAppend pending = state.beginAppend();
        Optional<BatchMetadata> dup = pending.check(pid, (short) epoch, batch(firstSeq, count));
        if (dup.isEmpty()) {
            pending.commit();
            nextOffset += count;
        }
        return dup;
    }

    private BatchMetadata batch(int firstSeq, int count) {
        int lastSeq = (int) (((long) firstSeq + count - 1) % (1L << 31));
        return new BatchMetadata(firstSeq, lastSeq, nextOffset, nextOffset + count - 1, 0L);
    }

    @Test
    void unknownProducerMayStartAtAnySequence() {
        assertThat(append(PID, 0, 57, 3)).isEmpty();
        assertThat(state.entry(PID).orElseThrow().lastSequence()).contains(59);
    }

    @Test
    void sameEpochMustContinueAtLastSequencePlusOne() {
        append(PID, 0, 0, 3);
        assertThat(append(PID, 0, 3, 2)).isEmpty();
        assertThatThrownBy(() -> append(PID, 0, 7, 1)).isInstanceOf(OutOfOrderSequenceException.class);
        assertThatThrownBy(() -> append(PID, 0, 4, 1)).isInstanceOf(OutOfOrderSequenceException.class);
        assertThat(state.entry(PID).orElseThrow().lastSequence()).contains(4);
    }

    @Test
    void retryOfOneOfTheLastFiveBatchesIsADuplicateWithTheOriginalOffsets() {
        for (int i = 0; i < 6; i++) {
            append(PID, 0, i * 2, 2);
        }
        // batch 1 (seq 2-3, offsets 2-3) is among the last five; batch 0 (seq 0-1) was dropped
        assertThat(append(PID, 0, 2, 2)).contains(new BatchMetadata(2, 3, 2, 3, 0L));
        assertThatThrownBy(() -> append(PID, 0, 0, 2)).isInstanceOf(OutOfOrderSequenceException.class);
        assertThat(state.entry(PID).orElseThrow().batches())
                .hasSize(ProducerStateManager.RETAINED_BATCHES_PER_PRODUCER);
    }

    @Test
    void batchOverlappingButNotEqualToAnEarlierOneIsOutOfOrder() {
        append(PID, 0, 0, 5);
        assertThatThrownBy(() -> append(PID, 0, 0, 3)).isInstanceOf(OutOfOrderSequenceException.class);
    }

    @Test
    void olderEpochIsFenced() {
        append(PID, 3, 0, 1);
        assertThatThrownBy(() -> append(PID, 2, 1, 1)).isInstanceOf(InvalidProducerEpochException.class);
    }

    @Test
    void newerEpochMustStartAtSequenceZero() {
        append(PID, 3, 0, 4);
        assertThatThrownBy(() -> append(PID, 4, 4, 1)).isInstanceOf(OutOfOrderSequenceException.class);
        assertThat(append(PID, 4, 0, 1)).isEmpty();
        ProducerStateEntry entry = state.entry(PID).orElseThrow();
        assertThat(entry.producerEpoch()).isEqualTo((short) 4);
        assertThat(entry.batches()).hasSize(1);
    }

    @Test
    void duplicateRequiresTheSameEpoch() {
        append(PID, 0, 0, 1);
        append(PID, 1, 0, 1);
        assertThatThrownBy(() -> append(PID, 0, 0, 1)).isInstanceOf(InvalidProducerEpochException.class);
    }

    @Test
    void sequenceWrapsFromIntMaxToZero() {
        append(PID, 0, Integer.MAX_VALUE - 1, 2);
        assertThat(state.entry(PID).orElseThrow().lastSequence()).contains(Integer.MAX_VALUE);
        assertThat(append(PID, 0, 0, 1)).isEmpty();
    }

    @Test
    void batchesOfOneAppendAreCheckedInOrderAgainstEachOther() {
        ProducerStateManager.PendingAppend pending = state.beginAppend();
        pending.check(PID, (short) 0, new BatchMetadata(0, 1, 0, 1, 0));
        pending.check(PID, (short) 0, new BatchMetadata(2, 2, 2, 2, 0));
        assertThatThrownBy(() -> pending.check(PID, (short) 0, new BatchMetadata(5, 5, 3, 3, 0)))
                .isInstanceOf(OutOfOrderSequenceException.class);
    }

    @Test
    void abandonedAppendLeavesTheStateUntouched() {
        append(PID, 0, 0, 1);
        ProducerStateManager.PendingAppend pending = state.beginAppend();
        pending.check(PID, (short) 0, new BatchMetadata(1, 1, 1, 1, 0));
        pending.check(PID + 1, (short) 0, new BatchMetadata(0, 0, 2, 2, 0));

        assertThat(state.entry(PID).orElseThrow().lastSequence()).contains(0);
        assertThat(state.entry(PID + 1)).isEmpty();
    }

    @Test
    void noProducerIdMeansNoChecks() {
        ProducerStateManager.PendingAppend pending = state.beginAppend();
        assertThat(pending.check(-1L, (short) -1, new BatchMetadata(-1, -1, 0, 0, 0)))
                .isEmpty();
        assertThat(pending.check(-1L, (short) -1, new BatchMetadata(-1, -1, 1, 1, 0)))
                .isEmpty();
        pending.commit();
        assertThat(state.producerCount()).isZero();
    }

    @Test
    void replayRebuildsEntriesAndKeepsOnlyTheLastFiveBatches() {
        for (int i = 0; i < 7; i++) {
            state.replay(PID, (short) 2, new BatchMetadata(i, i, i, i, 0));
        }
        state.replay(PID, (short) 1, new BatchMetadata(0, 0, 8, 8, 0)); // older epoch: ignored
        ProducerStateEntry entry = state.entry(PID).orElseThrow();
        assertThat(entry.producerEpoch()).isEqualTo((short) 2);
        assertThat(entry.batches()).extracting(BatchMetadata::firstSeq).containsExactly(2, 3, 4, 5, 6);
    }

    private void transactional(long pid, int firstSeq, int count) {
        ProducerStateManager.PendingAppend pending = state.beginAppend();
        pending.check(pid, (short) 0, batch(firstSeq, count), true);
        pending.commit();
        nextOffset += count;
    }

    private ProducerStateManager.CompletedTxn marker(long pid, int coordinatorEpoch, boolean commit) {
        ProducerStateManager.PendingAppend pending = state.beginAppend();
        ProducerStateManager.CompletedTxn completed =
                pending.checkMarker(pid, (short) 0, coordinatorEpoch, commit, nextOffset++, 0L);
        pending.commit();
        return completed;
    }

    @Test
    void aTransactionRunsFromItsFirstTransactionalBatchToItsMarker() {
        transactional(PID, 0, 2); // 0-1
        transactional(PID + 1, 0, 1); // 2
        transactional(PID, 2, 1); // 3
        assertThat(state.firstUnstableOffset()).isZero();
        assertThat(state.entry(PID).orElseThrow().currentTxnFirstOffset()).isZero();

        ProducerStateManager.CompletedTxn aborted = marker(PID, 0, false); // 4
        assertThat(aborted).isEqualTo(new ProducerStateManager.CompletedTxn(PID, 0, 4, true));
        assertThat(state.firstUnstableOffset()).isEqualTo(2);
        assertThat(state.lastStableOffsetAfter(aborted)).isEqualTo(2);

        ProducerStateManager.CompletedTxn committed = marker(PID + 1, 0, true); // 5
        assertThat(committed.aborted()).isFalse();
        assertThat(state.firstUnstableOffset()).isEqualTo(-1);
        assertThat(state.lastStableOffsetAfter(committed)).isEqualTo(6);
    }

    @Test
    void aMarkerIsStagedLikeABatchUntilCommitted() {
        transactional(PID, 0, 1);
        state.beginAppend().checkMarker(PID, (short) 0, 0, true, 1, 0L);
        assertThat(state.firstUnstableOffset()).as("never committed").isZero();
    }

    @Test
    void producersInATransactionNeverExpire() {
        transactional(PID, 0, 1);
        assertThat(state.removeExpiredProducers(Long.MAX_VALUE, 1)).isZero();
        marker(PID, 0, true);
        assertThat(state.removeExpiredProducers(Long.MAX_VALUE, 1)).isEqualTo(1);
    }

    @Test
    void snapshotAndRestoreRoundTrip() {
        append(PID, 0, 0, 2);
        ProducerStateManager restored = new ProducerStateManager();
        restored.restore(state.snapshot());
        assertThat(restored.entry(PID)).isEqualTo(state.entry(PID));
    }

    @Test
    void producersIdleForTheExpirationTimeAreForgottenAndMayThenStartAnywhere() {
        ProducerStateManager.PendingAppend pending = state.beginAppend();
        pending.check(1L, (short) 0, new BatchMetadata(0, 0, 0, 0, 1_000L));
        pending.check(2L, (short) 0, new BatchMetadata(0, 0, 1, 1, 5_000L));
        pending.commit();

        assertThat(state.removeExpiredProducers(10_999L, 10_000L)).isZero();
        assertThat(state.removeExpiredProducers(11_000L, 10_000L)).isEqualTo(1);
        assertThat(state.entry(1L)).isEmpty();
        assertThat(state.entry(2L)).isPresent();
        assertThat(append(1L, 0, 42, 1)).isEmpty();
    }
}

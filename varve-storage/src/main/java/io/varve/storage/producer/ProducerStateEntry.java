package io.varve.storage.producer;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Immutable state of one producer id: its current epoch, its most recent batches (oldest first, at most
 * {@link ProducerStateManager#RETAINED_BATCHES_PER_PRODUCER}), the first offset of its ongoing transaction,
 * the epoch of the coordinator that wrote its last marker, and when it last wrote.
 *
 * @param currentTxnFirstOffset first offset of the ongoing transaction, or {@link #NO_TXN}
 * @param coordinatorEpoch      coordinator epoch of the producer's last transaction marker, or {@link #NO_COORDINATOR_EPOCH}
 * @param lastTimestampMs       max timestamp of its last batch or marker (what expiration compares), or Long.MIN_VALUE
 */
public record ProducerStateEntry(
        long producerId,
        short producerEpoch,
        List<BatchMetadata> batches,
        long currentTxnFirstOffset,
        int coordinatorEpoch,
        long lastTimestampMs) {

    public static final long NO_TXN = -1L;
    public static final int NO_COORDINATOR_EPOCH = -1;

    public ProducerStateEntry {
        batches = List.copyOf(batches);
        if (batches.size() > ProducerStateManager.RETAINED_BATCHES_PER_PRODUCER) {
            throw new IllegalArgumentException("At most " + ProducerStateManager.RETAINED_BATCHES_PER_PRODUCER
                    + " batches are retained per producer, got " + batches.size());
        }
        if (currentTxnFirstOffset < NO_TXN) {
            throw new IllegalArgumentException("Bad transaction first offset " + currentTxnFirstOffset);
        }
    }

    /** An idempotent (non-transactional) producer's entry, timed by its last batch. */
    public ProducerStateEntry(long producerId, short producerEpoch, List<BatchMetadata> batches) {
        this(
                producerId,
                producerEpoch,
                batches,
                NO_TXN,
                NO_COORDINATOR_EPOCH,
                batches.isEmpty()
                        ? Long.MIN_VALUE
                        : batches.get(batches.size() - 1).timestampMs());
    }

    /** True while the producer has a transaction without its marker yet. */
    public boolean hasOngoingTxn() {
        return currentTxnFirstOffset != NO_TXN;
    }

    /** Last sequence appended in the current epoch, or empty when no batch is retained. */
    public Optional<Integer> lastSequence() {
        return batches.isEmpty()
                ? Optional.empty()
                : Optional.of(batches.get(batches.size() - 1).lastSeq());
    }

    /** The retained batch with this epoch and sequence range: the original of an idempotent retry. */
    public Optional<BatchMetadata> findDuplicate(short epoch, int firstSeq, int lastSeq) {
        if (epoch != producerEpoch) {
            return Optional.empty();
        }
        return batches.stream()
                .filter(b -> b.sameSequenceRange(firstSeq, lastSeq))
                .findFirst();
    }

    /** {@link #withBatch(short, BatchMetadata, boolean)} for a non-transactional batch. */
    public ProducerStateEntry withBatch(short epoch, BatchMetadata batch) {
        return withBatch(epoch, batch, false);
    }

    /**
     * This entry after appending {@code batch} in {@code epoch}: a new epoch starts a fresh batch list,
     * the same epoch appends and drops the oldest batch beyond the retention limit. A transactional batch
     * starts a transaction at its first offset unless one is ongoing.
     */
    public ProducerStateEntry withBatch(short epoch, BatchMetadata batch, boolean transactional) {
        List<BatchMetadata> next = new ArrayList<>(ProducerStateManager.RETAINED_BATCHES_PER_PRODUCER);
        if (epoch == producerEpoch) {
            next.addAll(batches);
        }
        next.add(batch);
        if (next.size() > ProducerStateManager.RETAINED_BATCHES_PER_PRODUCER) {
            next.remove(0);
        }
        long txnFirstOffset = transactional && !hasOngoingTxn() ? batch.firstOffset() : currentTxnFirstOffset;
        return new ProducerStateEntry(producerId, epoch, next, txnFirstOffset, coordinatorEpoch, batch.timestampMs());
    }

    /**
     * This entry after a transaction marker of {@code epoch} (never older than the current one): the
     * transaction ends and the coordinator epoch is remembered; a newer epoch (an epoch bump by the
     * coordinator) forgets the batches of the old one.
     */
    public ProducerStateEntry withMarker(short epoch, int markerCoordinatorEpoch, long timestampMs) {
        List<BatchMetadata> kept = epoch == producerEpoch ? batches : List.of();
        return new ProducerStateEntry(producerId, epoch, kept, NO_TXN, markerCoordinatorEpoch, timestampMs);
    }

    /** The entry of a producer first seen through a transaction marker. */
    static ProducerStateEntry fromMarker(long producerId, short epoch, int coordinatorEpoch, long timestampMs) {
        return new ProducerStateEntry(producerId, epoch, List.of(), NO_TXN, coordinatorEpoch, timestampMs);
    }

    /** The entry of a producer first seen through {@code batch}. */
    static ProducerStateEntry fromBatch(long producerId, short epoch, BatchMetadata batch, boolean transactional) {
        return new ProducerStateEntry(
                producerId,
                epoch,
                List.of(batch),
                transactional ? batch.firstOffset() : NO_TXN,
                NO_COORDINATOR_EPOCH,
                batch.timestampMs());
    }
}

package io.varve.storage.producer;

import io.varve.storage.batch.RecordBatchV2;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.TransactionCoordinatorFencedException;

/**
 * Per-partition idempotence and transaction state with Kafka's rules:
 * <ul>
 *   <li>a batch equal (epoch, first and last sequence) to one of the producer's last 5 is a duplicate;</li>
 *   <li>an epoch lower than the current one is fenced ({@link InvalidProducerEpochException});</li>
 *   <li>a higher epoch must start at sequence 0;</li>
 *   <li>the same epoch must continue at last sequence + 1, wrapping from Integer.MAX_VALUE to 0;</li>
 *   <li>an unknown producer may start at any sequence;</li>
 *   <li>a transactional batch of a producer without an ongoing transaction starts one at its first offset;
 *       a non-transactional batch during one is refused ({@link InvalidTxnStateException});</li>
 *   <li>a COMMIT or ABORT marker ends the producer's transaction; its producer epoch must not be older than
 *       the producer's ({@link InvalidProducerEpochException}) and its coordinator epoch not older than the
 *       last marker's ({@link TransactionCoordinatorFencedException}). A marker for a producer without an
 *       ongoing transaction (no data reached this partition) is accepted and completes an empty one.</li>
 * </ul>
 * An append is checked through a {@link PendingAppend}, which stages changes so that a failed or
 * abandoned append leaves the state untouched.
 *
 * <p>Transaction verification (KIP-890 part 1): before the leader asks the coordinator whether a producer's
 * transaction includes this partition it takes a {@link VerificationGuard} ({@link #startVerification}); an append
 * begun with a guard ({@link #beginAppend(VerificationGuard)}) may start the producer's transaction only with that
 * same guard, still held: a marker or a newer epoch of the producer drops it, so a verified write that arrives after
 * its transaction ended is refused ({@link InvalidTxnStateException}) instead of opening a transaction no
 * coordinator knows.
 */
public final class ProducerStateManager {

    public static final int RETAINED_BATCHES_PER_PRODUCER = 5;

    /**
     * A transaction ended by a marker: its producer, its first offset (the marker's own offset when no data
     * of it reached this partition) and the marker's offset as its last.
     */
    public record CompletedTxn(long producerId, long firstOffset, long lastOffset, boolean aborted) {}

    private final Map<Long, ProducerStateEntry> producers = new HashMap<>();
    /** First offset of every ongoing transaction, to its producer id. */
    private final TreeMap<Long, Long> ongoingTxns = new TreeMap<>();
    /** Verifications in progress, by producer id (in memory only: a new leader verifies again). */
    private final Map<Long, VerificationGuard> guards = new HashMap<>();

    /** Starts checking one append; nothing changes until {@link PendingAppend#commit()}. */
    public PendingAppend beginAppend() {
        return new PendingAppend(null);
    }

    /**
     * Starts checking one append of a verified produce: a transactional batch that starts its producer's transaction
     * here is accepted only with {@code guard}, the one {@link #startVerification} handed out and still held.
     */
    public PendingAppend beginAppend(VerificationGuard guard) {
        return new PendingAppend(guard == null ? VerificationGuard.UNVERIFIED : guard);
    }

    /**
     * Before asking the coordinator about a transactional write of {@code producerId} at {@code epoch}: empty when
     * the producer's transaction is already open here at that epoch (nothing to ask; append with {@link
     * VerificationGuard#UNVERIFIED}), else the guard to append with once the coordinator said yes (the one already
     * held for that epoch, or a new one).
     */
    public java.util.Optional<VerificationGuard> startVerification(long producerId, short epoch) {
        ProducerStateEntry current = producers.get(producerId);
        if (current != null && current.hasOngoingTxn() && current.producerEpoch() == epoch) {
            return java.util.Optional.empty();
        }
        VerificationGuard held = guards.get(producerId);
        if (held != null && held.producerEpoch() == epoch) {
            return java.util.Optional.of(held);
        }
        VerificationGuard guard = new VerificationGuard(producerId, epoch);
        guards.put(producerId, guard);
        return java.util.Optional.of(guard);
    }

    /** The guard held for the producer, if a verification is in progress (for tests and inspection). */
    public java.util.Optional<VerificationGuard> verificationGuard(long producerId) {
        return java.util.Optional.ofNullable(guards.get(producerId));
    }

    /** {@link #replay(long, short, BatchMetadata, boolean)} of a non-transactional batch. */
    public void replay(long producerId, short epoch, BatchMetadata batch) {
        replay(producerId, epoch, batch, false);
    }

    /**
     * Applies a data batch read back from the log, without validation (load-time rebuild). A batch of an
     * older epoch than the current one is ignored.
     */
    public void replay(long producerId, short epoch, BatchMetadata batch, boolean transactional) {
        ProducerStateEntry current = producers.get(producerId);
        if (current == null) {
            put(ProducerStateEntry.fromBatch(producerId, epoch, batch, transactional));
        } else if (epoch >= current.producerEpoch()) {
            put(current.withBatch(epoch, batch, transactional));
        }
    }

    /** Applies a transaction marker read back from the log, without validation; returns the transaction it ends. */
    public CompletedTxn replayMarker(
            long producerId, short epoch, int coordinatorEpoch, boolean commit, long markerOffset, long timestampMs) {
        guards.remove(producerId);
        ProducerStateEntry current = producers.get(producerId);
        CompletedTxn completed = completed(current, producerId, commit, markerOffset);
        put(
                current == null
                        ? ProducerStateEntry.fromMarker(producerId, epoch, coordinatorEpoch, timestampMs)
                        : current.withMarker(
                                (short) Math.max(epoch, current.producerEpoch()), coordinatorEpoch, timestampMs));
        return completed;
    }

    private static CompletedTxn completed(
            ProducerStateEntry current, long producerId, boolean commit, long markerOffset) {
        long firstOffset = current != null && current.hasOngoingTxn() ? current.currentTxnFirstOffset() : markerOffset;
        return new CompletedTxn(producerId, firstOffset, markerOffset, !commit);
    }

    public Optional<ProducerStateEntry> entry(long producerId) {
        return Optional.ofNullable(producers.get(producerId));
    }

    public int producerCount() {
        return producers.size();
    }

    /** Every producer's entry: what a producer-state snapshot will persist. */
    public Map<Long, ProducerStateEntry> snapshot() {
        return Map.copyOf(producers);
    }

    /** The smallest first offset of an ongoing transaction, or {@link ProducerStateEntry#NO_TXN} when none is open. */
    public long firstUnstableOffset() {
        return ongoingTxns.isEmpty() ? ProducerStateEntry.NO_TXN : ongoingTxns.firstKey();
    }

    /**
     * The last stable offset right after {@code completed} ended, as its transaction-index entry records it:
     * the first offset of the oldest transaction still open, or the offset after the marker.
     */
    public long lastStableOffsetAfter(CompletedTxn completed) {
        long firstUnstable = firstUnstableOffset();
        long afterMarker = completed.lastOffset() + 1;
        return firstUnstable == ProducerStateEntry.NO_TXN ? afterMarker : Math.min(firstUnstable, afterMarker);
    }

    /**
     * Forgets producers whose last batch is at least {@code expirationMs} older than {@code nowMs}
     * ({@code producer.id.expiration.ms}), except those in a transaction; returns how many were removed.
     */
    public int removeExpiredProducers(long nowMs, long expirationMs) {
        int before = producers.size();
        producers.values().removeIf(entry -> !entry.hasOngoingTxn() && nowMs - entry.lastTimestampMs() >= expirationMs);
        return before - producers.size();
    }

    /** Replaces the state with entries read from a snapshot. */
    public void restore(Map<Long, ProducerStateEntry> entries) {
        producers.clear();
        ongoingTxns.clear();
        guards.clear();
        entries.values().forEach(this::put);
    }

    private void put(ProducerStateEntry entry) {
        ProducerStateEntry previous = producers.put(entry.producerId(), entry);
        VerificationGuard guard = guards.get(entry.producerId());
        // The transaction began (the guard served), ended (a marker) or the epoch moved on: a guard only ever
        // admits the first batch of the transaction it was taken for.
        if (guard != null
                && ((entry.hasOngoingTxn() && entry.producerEpoch() == guard.producerEpoch())
                        || entry.producerEpoch() > guard.producerEpoch()
                        || (previous != null && previous.hasOngoingTxn() && !entry.hasOngoingTxn()))) {
            guards.remove(entry.producerId());
        }
        if (previous != null && previous.hasOngoingTxn()) {
            ongoingTxns.remove(previous.currentTxnFirstOffset());
        }
        if (entry.hasOngoingTxn()) {
            Long other = ongoingTxns.put(entry.currentTxnFirstOffset(), entry.producerId());
            if (other != null && other != entry.producerId()) {
                throw new IllegalStateException("Producers " + other + " and " + entry.producerId()
                        + " both start a transaction at offset " + entry.currentTxnFirstOffset());
            }
        }
    }

    /** The staged effect of one append on the producer state. */
    public final class PendingAppend {
        private final Map<Long, ProducerStateEntry> staged = new HashMap<>();
        private final List<CompletedTxn> completedTxns = new ArrayList<>();
        /** Null: no verification asked for; else the guard the append must hold to start a transaction. */
        private final VerificationGuard guard;

        private final java.util.Set<Long> markersStaged = new java.util.HashSet<>();

        private PendingAppend(VerificationGuard guard) {
            this.guard = guard;
        }

        /** {@link #check(long, short, BatchMetadata, boolean)} of a non-transactional batch. */
        public Optional<BatchMetadata> check(long producerId, short epoch, BatchMetadata batch) {
            return check(producerId, epoch, batch, false);
        }

        /**
         * Checks the next data batch of the append and stages it. Batches are checked in order, each against
         * the state left by the previous ones.
         *
         * @return the original batch when this one is an idempotent retry (nothing staged), else empty
         * @throws InvalidProducerEpochException the epoch is older than the producer's current epoch
         * @throws OutOfOrderSequenceException   the first sequence does not continue the producer's sequence
         * @throws InvalidTxnStateException      a non-transactional batch while the producer's transaction is open
         */
        public Optional<BatchMetadata> check(long producerId, short epoch, BatchMetadata batch, boolean transactional) {
            if (producerId == RecordBatchV2.NO_PRODUCER_ID) {
                return Optional.empty();
            }
            ProducerStateEntry current = current(producerId);
            if (current != null) {
                Optional<BatchMetadata> duplicate = current.findDuplicate(epoch, batch.firstSeq(), batch.lastSeq());
                if (duplicate.isPresent()) {
                    return duplicate;
                }
                checkEpochAndSequence(current, epoch, batch.firstSeq());
                if (!transactional && current.hasOngoingTxn()) {
                    throw new InvalidTxnStateException(
                            "Producer " + producerId + " wrote a non-transactional batch while "
                                    + "its transaction from offset " + current.currentTxnFirstOffset() + " is open");
                }
            }
            if (transactional && guard != null && (current == null || !current.hasOngoingTxn())) {
                VerificationGuard held = markersStaged.contains(producerId) ? null : guards.get(producerId);
                if (guard == VerificationGuard.UNVERIFIED || held != guard || guard.producerEpoch() != epoch) {
                    throw new InvalidTxnStateException("Producer " + producerId + " epoch " + epoch
                            + " wrote a transactional batch that starts a transaction this partition was not"
                            + " verified to be part of");
                }
            }
            staged.put(
                    producerId,
                    current == null
                            ? ProducerStateEntry.fromBatch(producerId, epoch, batch, transactional)
                            : current.withBatch(epoch, batch, transactional));
            return Optional.empty();
        }

        /**
         * Checks a COMMIT or ABORT marker at {@code markerOffset} and stages the end of the producer's transaction.
         *
         * @return the transaction it ends
         * @throws InvalidProducerEpochException          the marker's producer epoch is older than the producer's
         * @throws TransactionCoordinatorFencedException the marker's coordinator epoch is older than the last seen
         */
        public CompletedTxn checkMarker(
                long producerId,
                short epoch,
                int coordinatorEpoch,
                boolean commit,
                long markerOffset,
                long timestampMs) {
            ProducerStateEntry current = current(producerId);
            if (current != null) {
                if (epoch < current.producerEpoch()) {
                    throw new InvalidProducerEpochException("Transaction marker of producer " + producerId
                            + " has epoch " + epoch + ", older than the current epoch " + current.producerEpoch());
                }
                if (coordinatorEpoch < current.coordinatorEpoch()) {
                    throw new TransactionCoordinatorFencedException("Transaction marker of producer " + producerId
                            + " comes from coordinator epoch " + coordinatorEpoch + ", older than the last seen "
                            + current.coordinatorEpoch());
                }
            }
            CompletedTxn completed = completed(current, producerId, commit, markerOffset);
            markersStaged.add(producerId);
            staged.put(
                    producerId,
                    current == null
                            ? ProducerStateEntry.fromMarker(producerId, epoch, coordinatorEpoch, timestampMs)
                            : current.withMarker(epoch, coordinatorEpoch, timestampMs));
            completedTxns.add(completed);
            return completed;
        }

        private ProducerStateEntry current(long producerId) {
            return staged.containsKey(producerId) ? staged.get(producerId) : producers.get(producerId);
        }

        /** The transactions the staged markers end, in append order. */
        public List<CompletedTxn> completedTxns() {
            return List.copyOf(completedTxns);
        }

        /** Applies the staged batches and markers; call only once the bytes are written. */
        public void commit() {
            markersStaged.forEach(guards::remove);
            staged.values().forEach(ProducerStateManager.this::put);
            staged.clear();
        }

        private void checkEpochAndSequence(ProducerStateEntry current, short epoch, int firstSeq) {
            long producerId = current.producerId();
            if (epoch < current.producerEpoch()) {
                throw new InvalidProducerEpochException("Producer " + producerId + " epoch " + epoch
                        + " is older than the current epoch " + current.producerEpoch());
            }
            if (epoch > current.producerEpoch()) {
                if (firstSeq != 0) {
                    throw new OutOfOrderSequenceException("Producer " + producerId + " started epoch " + epoch
                            + " at sequence " + firstSeq + "; a new epoch must start at 0");
                }
                return;
            }
            Optional<Integer> lastSeq = current.lastSequence();
            int expected =
                    lastSeq.map(seq -> RecordBatchV2.incrementSequence(seq, 1)).orElse(0);
            if (firstSeq != expected) {
                throw new OutOfOrderSequenceException("Producer " + producerId + " epoch " + epoch + " sent sequence "
                        + firstSeq + " but the next expected is " + expected);
            }
        }
    }
}

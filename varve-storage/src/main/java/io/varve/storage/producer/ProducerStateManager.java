package io.varve.storage.producer;

import io.varve.storage.batch.RecordBatchV2;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;

/**
 * Per-partition idempotence state with Kafka's rules:
 * <ul>
 *   <li>a batch equal (epoch, first and last sequence) to one of the producer's last 5 is a duplicate;</li>
 *   <li>an epoch lower than the current one is fenced ({@link InvalidProducerEpochException});</li>
 *   <li>a higher epoch must start at sequence 0;</li>
 *   <li>the same epoch must continue at last sequence + 1, wrapping from Integer.MAX_VALUE to 0;</li>
 *   <li>an unknown producer may start at any sequence.</li>
 * </ul>
 * An append is checked through a {@link PendingAppend}, which stages changes so that a failed or
 * abandoned append leaves the state untouched.
 */
public final class ProducerStateManager {

  public static final int RETAINED_BATCHES_PER_PRODUCER = 5;

  private final Map<Long, ProducerStateEntry> producers = new HashMap<>();

  /** Starts checking one append; nothing changes until {@link PendingAppend#commit()}. */
  public PendingAppend beginAppend() {
    return new PendingAppend();
  }

  /**
   * Applies a batch read back from the log, without validation (load-time rebuild). A batch of an
   * older epoch than the current one is ignored.
   */
  public void replay(long producerId, short epoch, BatchMetadata batch) {
    ProducerStateEntry current = producers.get(producerId);
    if (current == null) {
      producers.put(producerId, new ProducerStateEntry(producerId, epoch, List.of(batch)));
    } else if (epoch >= current.producerEpoch()) {
      producers.put(producerId, current.withBatch(epoch, batch));
    }
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

  /**
   * Forgets producers whose last batch is at least {@code expirationMs} older than {@code nowMs}
   * ({@code producer.id.expiration.ms}); returns how many were removed.
   */
  public int removeExpiredProducers(long nowMs, long expirationMs) {
    int before = producers.size();
    producers.values().removeIf(entry -> nowMs - entry.lastTimestampMs() >= expirationMs);
    return before - producers.size();
  }

  /** Replaces the state with entries read from a snapshot. */
  public void restore(Map<Long, ProducerStateEntry> entries) {
    producers.clear();
    producers.putAll(entries);
  }

  /** The staged effect of one append on the producer state. */
  public final class PendingAppend {
    private final Map<Long, ProducerStateEntry> staged = new HashMap<>();

    private PendingAppend() {}

    /**
     * Checks the next batch of the append and stages it. Batches are checked in order, each against the
     * state left by the previous ones.
     *
     * @return the original batch when this one is an idempotent retry (nothing staged), else empty
     * @throws InvalidProducerEpochException the epoch is older than the producer's current epoch
     * @throws OutOfOrderSequenceException   the first sequence does not continue the producer's sequence
     */
    public Optional<BatchMetadata> check(long producerId, short epoch, BatchMetadata batch) {
      if (producerId == RecordBatchV2.NO_PRODUCER_ID) {
        return Optional.empty();
      }
      ProducerStateEntry current = staged.containsKey(producerId) ? staged.get(producerId) : producers.get(producerId);
      if (current != null) {
        Optional<BatchMetadata> duplicate = current.findDuplicate(epoch, batch.firstSeq(), batch.lastSeq());
        if (duplicate.isPresent()) {
          return duplicate;
        }
        checkEpochAndSequence(current, epoch, batch.firstSeq());
      }
      ProducerStateEntry next = current == null
          ? new ProducerStateEntry(producerId, epoch, List.of(batch))
          : current.withBatch(epoch, batch);
      staged.put(producerId, next);
      return Optional.empty();
    }

    /** Applies the staged batches; call only once the bytes are written. */
    public void commit() {
      producers.putAll(staged);
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
      int expected = lastSeq.map(seq -> RecordBatchV2.incrementSequence(seq, 1)).orElse(0);
      if (firstSeq != expected) {
        throw new OutOfOrderSequenceException("Producer " + producerId + " epoch " + epoch
            + " sent sequence " + firstSeq + " but the next expected is " + expected);
      }
    }
  }
}

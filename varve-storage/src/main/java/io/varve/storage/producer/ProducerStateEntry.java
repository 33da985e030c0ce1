package io.varve.storage.producer;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Immutable state of one producer id: its current epoch and its most recent batches (oldest first,
 * at most {@link ProducerStateManager#RETAINED_BATCHES_PER_PRODUCER}).
 */
public record ProducerStateEntry(long producerId, short producerEpoch, List<BatchMetadata> batches) {

  public ProducerStateEntry {
    batches = List.copyOf(batches);
    if (batches.size() > ProducerStateManager.RETAINED_BATCHES_PER_PRODUCER) {
      throw new IllegalArgumentException("At most " + ProducerStateManager.RETAINED_BATCHES_PER_PRODUCER
          + " batches are retained per producer, got " + batches.size());
    }
  }

  /** Max timestamp of the producer's last batch (what expiration compares), or Long.MIN_VALUE with none. */
  public long lastTimestampMs() {
    return batches.isEmpty() ? Long.MIN_VALUE : batches.get(batches.size() - 1).timestampMs();
  }

  /** Last sequence appended in the current epoch, or empty when no batch is retained. */
  public Optional<Integer> lastSequence() {
    return batches.isEmpty() ? Optional.empty() : Optional.of(batches.get(batches.size() - 1).lastSeq());
  }

  /** The retained batch with this epoch and sequence range: the original of an idempotent retry. */
  public Optional<BatchMetadata> findDuplicate(short epoch, int firstSeq, int lastSeq) {
    if (epoch != producerEpoch) {
      return Optional.empty();
    }
    return batches.stream().filter(b -> b.sameSequenceRange(firstSeq, lastSeq)).findFirst();
  }

  /**
   * This entry after appending {@code batch} in {@code epoch}: a new epoch starts a fresh batch list,
   * the same epoch appends and drops the oldest batch beyond the retention limit.
   */
  public ProducerStateEntry withBatch(short epoch, BatchMetadata batch) {
    List<BatchMetadata> next = new ArrayList<>(ProducerStateManager.RETAINED_BATCHES_PER_PRODUCER);
    if (epoch == producerEpoch) {
      next.addAll(batches);
    }
    next.add(batch);
    if (next.size() > ProducerStateManager.RETAINED_BATCHES_PER_PRODUCER) {
      next.remove(0);
    }
    return new ProducerStateEntry(producerId, epoch, next);
  }
}

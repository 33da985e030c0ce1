package io.varve.coordinator.runtime;

import io.varve.coordinator.group.record.CoordinatorRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What one event produced: records to persist, then responses to release. Responses never leave before the
 * records written with them are durable, so a client never sees state the log could lose. Records are grouped into
 * writes: plain ones, and transactional ones that belong to a producer's transaction (TxnOffsetCommit) and must be
 * appended as a transactional batch of that producer id and epoch.
 */
public final class Outbox {
    /** No producer: a plain (non-transactional) write. */
    public static final long NO_PRODUCER_ID = -1;

    /** Consecutive records with one producer identity; {@code producerId} {@link #NO_PRODUCER_ID} for plain ones. */
    public record Write(long producerId, short producerEpoch, List<CoordinatorRecord> records) {
        public boolean isTransactional() {
            return producerId != NO_PRODUCER_ID;
        }
    }

    /** A response held until the records before it are written. */
    public record Completion<T>(CompletableFuture<T> future, T value) {
        public void complete() {
            future.complete(value);
        }

        public void fail(Throwable cause) {
            future.completeExceptionally(cause);
        }
    }

    /** Drained output of a shard: append {@code writes} in order, then {@link #complete()} (or {@link #fail}). */
    public record Output(List<Write> writes, List<Completion<?>> completions) {
        public boolean isEmpty() {
            return writes.isEmpty() && completions.isEmpty();
        }

        /** Every record of every write, in order. */
        public List<CoordinatorRecord> records() {
            List<CoordinatorRecord> out = new ArrayList<>();
            writes.forEach(w -> out.addAll(w.records()));
            return out;
        }

        public void complete() {
            completions.forEach(Completion::complete);
        }

        public void fail(Throwable cause) {
            completions.forEach(c -> c.fail(cause));
        }
    }

    private List<Write> writes = new ArrayList<>();
    private List<Completion<?>> completions = new ArrayList<>();

    public void append(CoordinatorRecord record) {
        appendAs(NO_PRODUCER_ID, (short) -1, record);
    }

    /** A record of the producer's ongoing transaction: visible only once its COMMIT marker follows. */
    public void appendTransactional(long producerId, short producerEpoch, CoordinatorRecord record) {
        if (producerId < 0 || producerEpoch < 0) {
            throw new IllegalArgumentException(
                    "a transactional record needs a producer id and epoch: " + producerId + "/" + producerEpoch);
        }
        appendAs(producerId, producerEpoch, record);
    }

    private void appendAs(long producerId, short producerEpoch, CoordinatorRecord record) {
        Write last = writes.isEmpty() ? null : writes.get(writes.size() - 1);
        if (last == null || last.producerId() != producerId || last.producerEpoch() != producerEpoch) {
            last = new Write(producerId, producerEpoch, new ArrayList<>());
            writes.add(last);
        }
        last.records().add(record);
    }

    public <T> void respond(CompletableFuture<T> future, T value) {
        completions.add(new Completion<>(future, value));
    }

    /** A future already answered: for events that reply at once. */
    public <T> CompletableFuture<T> respond(T value) {
        CompletableFuture<T> f = new CompletableFuture<>();
        respond(f, value);
        return f;
    }

    public Output drain() {
        Output out = new Output(writes, completions);
        writes = new ArrayList<>();
        completions = new ArrayList<>();
        return out;
    }
}

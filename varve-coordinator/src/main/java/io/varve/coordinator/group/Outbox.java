package io.varve.coordinator.group;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.varve.coordinator.group.record.CoordinatorRecord;

/**
 * What one event produced: records to persist, then responses to release. Responses never leave before the
 * records written with them are durable, so a client never sees state the log could lose.
 */
public final class Outbox {
    /** A response held until the records before it are written. */
    public record Completion<T>(CompletableFuture<T> future, T value) {
        public void complete() {
            future.complete(value);
        }

        public void fail(Throwable cause) {
            future.completeExceptionally(cause);
        }
    }

    /** Drained output of a shard: write {@code records}, then {@link #complete()} (or {@link #fail} if the write failed). */
    public record Output(List<CoordinatorRecord> records, List<Completion<?>> completions) {
        public boolean isEmpty() {
            return records.isEmpty() && completions.isEmpty();
        }

        public void complete() {
            completions.forEach(Completion::complete);
        }

        public void fail(Throwable cause) {
            completions.forEach(c -> c.fail(cause));
        }
    }

    private List<CoordinatorRecord> records = new ArrayList<>();
    private List<Completion<?>> completions = new ArrayList<>();

    public void append(CoordinatorRecord record) {
        records.add(record);
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
        Output out = new Output(records, completions);
        records = new ArrayList<>();
        completions = new ArrayList<>();
        return out;
    }
}

package io.varve.registry.store;

import java.util.List;

/**
 * The registry's log, which the broker implements over the compacted {@code _schemas} topic (one partition): records
 * are Confluent-style JSON keys and values (a null value is a tombstone). Only the node leading the partition writes.
 */
public interface SchemaLog {
    /** One record of the log. */
    record Entry(byte[] key, byte[] value) {}

    /** What a read hands over, in log order. */
    interface Sink {
        void record(byte[] key, byte[] value);
    }

    /**
     * Appends {@code entries} in order as one write and returns once they are in the log, or throws a
     * {@link io.varve.registry.RegistryException} (50003 when this node is not the writer, 50001 otherwise).
     */
    void append(List<Entry> entries);

    /**
     * Called under the registry's writer lock before every write, before the registry replays what it has not read:
     * a log whose writer can change (the broker's, when the leader of its partition moves) appends and commits a
     * claim there once per leadership, so that the replay that follows has every record the previous writer
     * committed, and throws a {@link io.varve.registry.RegistryException} with 50003 when this node is not the
     * writer. A log with one writer for good needs nothing.
     */
    default void claimWriter() {}

    /** Reads every record from {@code fromOffset} to the log's current end; returns the offset after the last. */
    long readFrom(long fromOffset, Sink sink);
}

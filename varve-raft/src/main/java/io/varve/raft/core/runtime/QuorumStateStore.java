package io.varve.raft.core.runtime;

import java.util.Optional;

/** Durable home of the {@link ElectionRecord}. A write is atomic and durable when it returns. */
public interface QuorumStateStore {

    /** The last written record, or empty if none was ever written. */
    Optional<ElectionRecord> read();

    void write(ElectionRecord record);
}

package io.varve.raft.state;

import java.io.IOException;
import java.util.Optional;

/** Durable home of the {@link ElectionState}. A write is atomic and durable when it returns. */
public interface QuorumStateStore {

    /** The last written state, or empty if none was ever written. */
    Optional<ElectionState> read() throws IOException;

    void write(ElectionState state) throws IOException;
}

package io.varve.raft.core.runtime;

import java.util.Optional;

/** An in-memory {@link QuorumStateStore}: every write is "durable" (it survives a simulated crash). */
public final class MemoryQuorumStateStore implements QuorumStateStore {
    private ElectionRecord record;
    private int writes;

    @Override
    public Optional<ElectionRecord> read() {
        return Optional.ofNullable(record);
    }

    @Override
    public void write(ElectionRecord next) {
        record = next;
        writes++;
    }

    public int writes() {
        return writes;
    }
}

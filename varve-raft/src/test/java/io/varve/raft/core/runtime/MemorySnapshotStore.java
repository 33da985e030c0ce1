package io.varve.raft.core.runtime;

import io.varve.raft.core.message.SnapshotId;
import java.util.Arrays;
import java.util.Optional;

/** An in-memory {@link SnapshotStore} keeping only the latest snapshot; writes survive a simulated crash. */
public final class MemorySnapshotStore implements SnapshotStore {
    private SnapshotId latest;
    private byte[] data;

    @Override
    public Optional<SnapshotId> latest() {
        return Optional.ofNullable(latest);
    }

    @Override
    public long sizeBytes(SnapshotId id) {
        return bytesOf(id).length;
    }

    @Override
    public byte[] read(SnapshotId id, long position, int maxBytes) {
        byte[] bytes = bytesOf(id);
        int from = (int) position;
        return Arrays.copyOfRange(bytes, from, Math.min(bytes.length, from + maxBytes));
    }

    @Override
    public void write(SnapshotId id, byte[] bytes) {
        if (latest != null && id.endOffset() < latest.endOffset()) {
            throw new IllegalArgumentException("snapshot " + id + " older than " + latest);
        }
        latest = id;
        data = bytes.clone();
    }

    /** The latest snapshot's bytes. */
    public byte[] data() {
        return data.clone();
    }

    private byte[] bytesOf(SnapshotId id) {
        if (!id.equals(latest)) {
            throw new IllegalArgumentException("no snapshot " + id + " (latest " + latest + ")");
        }
        return data;
    }
}

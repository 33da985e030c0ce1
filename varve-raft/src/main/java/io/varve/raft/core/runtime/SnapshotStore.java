package io.varve.raft.core.runtime;

import io.varve.raft.core.message.SnapshotId;
import java.util.Optional;

/**
 * Durable snapshots of the state machine (KIP-630). The core only needs the latest one: it serves it to
 * followers in chunks and installs one it fetched. A write is atomic and durable when it returns.
 */
public interface SnapshotStore {

    Optional<SnapshotId> latest();

    /** The size in bytes of a stored snapshot. */
    long sizeBytes(SnapshotId id);

    /** At most {@code maxBytes} bytes of a stored snapshot from {@code position}. */
    byte[] read(SnapshotId id, long position, int maxBytes);

    /** Stores a whole snapshot; older ones may be deleted. */
    void write(SnapshotId id, byte[] data);
}

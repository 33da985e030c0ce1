package io.varve.raft.core;

import io.varve.raft.core.message.SnapshotId;
import java.io.ByteArrayOutputStream;

/** A snapshot a follower is pulling from the leader chunk by chunk (KIP-630 FetchSnapshot). */
final class SnapshotDownload {
    /** Refuse snapshots larger than this: the download buffers in memory. */
    static final long MAX_SNAPSHOT_BYTES = 256L * 1024 * 1024;

    final SnapshotId id;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private long sizeBytes = -1;

    SnapshotDownload(SnapshotId id) {
        this.id = id;
    }

    long position() {
        return bytes.size();
    }

    /** Adds the chunk at {@code position}; true once the whole snapshot is here. */
    boolean accept(long totalSizeBytes, long position, byte[] chunk) {
        if (position != bytes.size()) {
            throw new IllegalStateException("snapshot chunk at " + position + ", expected " + bytes.size());
        }
        if (totalSizeBytes < 0 || totalSizeBytes > MAX_SNAPSHOT_BYTES) {
            throw new IllegalStateException("snapshot size out of bounds: " + totalSizeBytes);
        }
        if (sizeBytes >= 0 && sizeBytes != totalSizeBytes) {
            throw new IllegalStateException("snapshot size changed: " + sizeBytes + " -> " + totalSizeBytes);
        }
        sizeBytes = totalSizeBytes;
        if (position + chunk.length > totalSizeBytes) {
            throw new IllegalStateException("snapshot chunk past its end: " + (position + chunk.length));
        }
        bytes.write(chunk, 0, chunk.length);
        return bytes.size() == sizeBytes;
    }

    byte[] data() {
        return bytes.toByteArray();
    }
}

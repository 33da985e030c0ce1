package io.varve.raft.core;

import io.varve.raft.core.message.SnapshotId;
import io.varve.raft.core.message.VoterSet;
import io.varve.raft.core.runtime.SnapshotStore;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes of a snapshot as stored and shipped: a header with the voter set in effect at the snapshot's
 * end (KRaft keeps it as a control record at the start of the snapshot), then the state machine's bytes.
 * The header is {@code int32 magic, int32 length, voter set}; snapshots of the first format ({@code VRS1}: the
 * magic, then a set of ids without a length) are still read.
 */
public final class SnapshotFormat {
    private static final int MAGIC_V1 = 0x56525331; // "VRS1"
    private static final int MAGIC_V2 = 0x56525332; // "VRS2"
    private static final int V1_MAX_HEADER_BYTES = 8 + 4 * VoterSet.MAX_VOTERS;

    private SnapshotFormat() {}

    static byte[] wrap(VoterSet voters, byte[] stateMachineBytes) {
        byte[] header = voters.encode();
        return ByteBuffer.allocate(8 + header.length + stateMachineBytes.length)
                .putInt(MAGIC_V2)
                .putInt(header.length)
                .put(header)
                .put(stateMachineBytes)
                .array();
    }

    /** The state machine's part of a stored snapshot. */
    public static byte[] stateMachineBytes(byte[] snapshot) {
        ByteBuffer buffer = ByteBuffer.wrap(snapshot);
        readHeader(buffer);
        return Arrays.copyOfRange(snapshot, buffer.position(), snapshot.length);
    }

    /** The voter set in a whole snapshot's header. */
    static VoterSet voters(byte[] snapshot) {
        return readHeader(ByteBuffer.wrap(snapshot));
    }

    /** The voter set in a stored snapshot's header, reading only the header. */
    static VoterSet voters(SnapshotStore store, SnapshotId id) {
        byte[] prefix = store.read(id, 0, 8);
        ByteBuffer buffer = ByteBuffer.wrap(prefix);
        if (prefix.length == 8 && buffer.getInt() == MAGIC_V2) {
            int length = buffer.getInt();
            return voters(store.read(id, 0, 8 + length));
        }
        return voters(store.read(id, 0, V1_MAX_HEADER_BYTES));
    }

    private static VoterSet readHeader(ByteBuffer buffer) {
        if (buffer.remaining() < 8) {
            throw new IllegalStateException("not a snapshot written by the Raft core");
        }
        int magic = buffer.getInt();
        if (magic == MAGIC_V1) {
            return VoterSet.decode(buffer);
        }
        if (magic != MAGIC_V2) {
            throw new IllegalStateException("not a snapshot written by the Raft core");
        }
        int length = buffer.getInt();
        if (length <= 0 || length > buffer.remaining()) {
            throw new IllegalStateException("a snapshot header of " + length + " bytes in " + buffer.capacity());
        }
        int start = buffer.position();
        VoterSet voters = VoterSet.decode(buffer.slice(start, length));
        buffer.position(start + length);
        return voters;
    }
}

package io.varve.raft.core;

import io.varve.raft.core.message.VoterSet;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes of a snapshot as stored and shipped: a header with the voter set in effect at the snapshot's
 * end (KRaft keeps it as a control record at the start of the snapshot), then the state machine's bytes.
 */
public final class SnapshotFormat {
    private static final int MAGIC = 0x56525331; // "VRS1"
    private static final int MAX_HEADER_BYTES = 8 + 4 * VoterSet.MAX_VOTERS;

    private SnapshotFormat() {}

    static byte[] wrap(VoterSet voters, byte[] stateMachineBytes) {
        byte[] header = voters.encode();
        return ByteBuffer.allocate(4 + header.length + stateMachineBytes.length)
                .putInt(MAGIC)
                .put(header)
                .put(stateMachineBytes)
                .array();
    }

    /** The state machine's part of a stored snapshot. */
    public static byte[] stateMachineBytes(byte[] snapshot) {
        ByteBuffer buffer = open(snapshot);
        VoterSet.decode(buffer);
        return Arrays.copyOfRange(snapshot, buffer.position(), snapshot.length);
    }

    static VoterSet voters(byte[] snapshotPrefix) {
        return VoterSet.decode(open(snapshotPrefix));
    }

    /** How many leading bytes always hold the whole header. */
    static int maxHeaderBytes() {
        return MAX_HEADER_BYTES;
    }

    private static ByteBuffer open(byte[] snapshot) {
        ByteBuffer buffer = ByteBuffer.wrap(snapshot);
        if (snapshot.length < 8 || buffer.getInt() != MAGIC) {
            throw new IllegalStateException("not a snapshot written by the Raft core");
        }
        return buffer;
    }
}

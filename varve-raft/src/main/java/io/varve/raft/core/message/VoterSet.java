package io.varve.raft.core.message;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * The replicas that vote and count for the high watermark (KIP-853 VotersRecord, ids only: no directory
 * ids or endpoints yet). Encoded as a VOTERS log entry's payload and in the header of every snapshot.
 */
public record VoterSet(Set<Integer> ids) {
    /** A voter set larger than this is refused: every replica keeps per-voter state. */
    public static final int MAX_VOTERS = 64;

    public VoterSet {
        // Sorted, never Set.copyOf: its iteration order changes from one JVM to the next, and a replica's
        // behaviour (the order it sends in) must be a function of its inputs for a seed to replay.
        ids = Collections.unmodifiableSortedSet(new TreeSet<>(ids));
        if (ids.isEmpty() || ids.size() > MAX_VOTERS) {
            throw new IllegalArgumentException("a voter set holds 1 to " + MAX_VOTERS + " voters: " + ids);
        }
        for (int id : ids) {
            if (id < 0) {
                throw new IllegalArgumentException("voter ids must be >= 0: " + ids);
            }
        }
    }

    public boolean contains(int id) {
        return ids.contains(id);
    }

    public int size() {
        return ids.size();
    }

    public int majority() {
        return ids.size() / 2 + 1;
    }

    public VoterSet with(int id) {
        Set<Integer> next = new TreeSet<>(ids);
        next.add(id);
        return new VoterSet(next);
    }

    public VoterSet without(int id) {
        Set<Integer> next = new TreeSet<>(ids);
        next.remove(id);
        return new VoterSet(next);
    }

    public byte[] encode() {
        ByteBuffer buffer = ByteBuffer.allocate(4 + 4 * ids.size());
        buffer.putInt(ids.size());
        for (int id : new TreeSet<>(ids)) {
            buffer.putInt(id);
        }
        return buffer.array();
    }

    public static VoterSet decode(ByteBuffer buffer) {
        int count = buffer.getInt();
        if (count <= 0 || count > MAX_VOTERS) {
            throw new IllegalArgumentException("corrupt voter set: " + count + " voters");
        }
        Set<Integer> ids = new TreeSet<>();
        for (int i = 0; i < count; i++) {
            ids.add(buffer.getInt());
        }
        return new VoterSet(ids);
    }

    public static VoterSet decode(byte[] payload) {
        return decode(ByteBuffer.wrap(payload));
    }
}

package io.varve.storage.cleaner;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * Key to latest offset, in fixed memory: an open-addressing table (linear probing) of 128-bit key
 * digests (the first half of SHA-256, so crafted keys cannot collide with another key's entry) and
 * offsets, {@value #BYTES_PER_ENTRY} bytes a slot. It never grows: a cleaner asks {@link #remaining()}
 * before feeding it a batch and stops its pass there when the batch might not fit, which keeps probing
 * short ({@value #LOAD_FACTOR} load at most). One cleaning thread uses one map.
 */
final class KeyOffsetMap {

    static final int BYTES_PER_ENTRY = 24;
    static final double LOAD_FACTOR = 0.9;
    private static final long NO_OFFSET = -1L;
    /** Two longs of digest per slot, in one array: slots are at most half an array's reach. */
    private static final int MAX_SLOTS = (Integer.MAX_VALUE - 8) / 2;

    private final int slots;
    private final int maxEntries;
    private final long[] digests;
    private final long[] offsets;
    private final MessageDigest sha256;
    private int size;

    KeyOffsetMap(int slots) {
        if (slots < 2 || slots > MAX_SLOTS) {
            throw new IllegalArgumentException("slots must be in [2, " + MAX_SLOTS + "]: " + slots);
        }
        this.slots = slots;
        this.maxEntries = Math.max(1, (int) (slots * LOAD_FACTOR));
        this.digests = new long[2 * slots];
        this.offsets = new long[slots];
        Arrays.fill(offsets, NO_OFFSET);
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
    }

    /** Slots that fit in {@code memoryBytes} (at least 2). */
    static int slotsFor(long memoryBytes) {
        return (int) Math.max(2, Math.min(MAX_SLOTS, memoryBytes / BYTES_PER_ENTRY));
    }

    /** Slots needed to hold {@code entries} keys within the load factor. */
    static int slotsToHold(long entries) {
        return (int) Math.max(2, Math.min(MAX_SLOTS, (long) Math.ceil(entries / LOAD_FACTOR) + 1));
    }

    int slots() {
        return slots;
    }

    int size() {
        return size;
    }

    /** Keys that can still be added. */
    int remaining() {
        return maxEntries - size;
    }

    void clear() {
        if (size > 0) {
            Arrays.fill(offsets, NO_OFFSET);
            size = 0;
        }
    }

    /** Records {@code offset} for the key (position to limit of {@code key}, not consumed) if it is newer. */
    void put(ByteBuffer key, long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("Negative offset " + offset);
        }
        byte[] digest = digest(key);
        long high = ByteBuffer.wrap(digest).getLong(0);
        long low = ByteBuffer.wrap(digest).getLong(8);
        int slot = find(high, low);
        if (offsets[slot] == NO_OFFSET) {
            if (size >= maxEntries) {
                throw new IllegalStateException("Offset map is full (" + size + " keys); check remaining() first");
            }
            digests[2 * slot] = high;
            digests[2 * slot + 1] = low;
            offsets[slot] = offset;
            size++;
        } else if (offset > offsets[slot]) {
            offsets[slot] = offset;
        }
    }

    /** The offset recorded for the key, or -1 when it has none. */
    long get(ByteBuffer key) {
        byte[] digest = digest(key);
        return offsets[
                find(ByteBuffer.wrap(digest).getLong(0), ByteBuffer.wrap(digest).getLong(8))];
    }

    /** The slot holding the digest, or the empty slot where it would go; the load factor bounds the probe. */
    private int find(long high, long low) {
        int slot = (int) Long.remainderUnsigned(high ^ Long.rotateLeft(low, 17), slots);
        for (int probes = 0; probes < slots; probes++) {
            if (offsets[slot] == NO_OFFSET || (digests[2 * slot] == high && digests[2 * slot + 1] == low)) {
                return slot;
            }
            slot = slot + 1 == slots ? 0 : slot + 1;
        }
        throw new IllegalStateException("Offset map has no free slot; the load factor should prevent this");
    }

    private byte[] digest(ByteBuffer key) {
        sha256.update(key.duplicate());
        return sha256.digest();
    }
}

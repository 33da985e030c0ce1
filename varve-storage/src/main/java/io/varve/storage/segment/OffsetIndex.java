package io.varve.storage.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Sparse offset index of one segment: 8-byte entries (int32 offset relative to the segment's base
 * offset, int32 file position), both strictly increasing. An entry names the base offset of a batch
 * and where that batch starts, so every entry is a batch boundary.
 */
public final class OffsetIndex extends IndexFile {

    public static final int ENTRY_SIZE_BYTES = 8;
    private static final long NO_ENTRY = -1L;

    /** One index entry with its offset made absolute. */
    public record Entry(long offset, int position) {}

    /** The last entry packed as (relativeOffset << 32 | position), or NO_ENTRY: the tail lookup needs no I/O. */
    private volatile long lastEntryPacked = NO_ENTRY;

    private OffsetIndex(Path file, long baseOffset) throws IOException {
        super(file, baseOffset, ENTRY_SIZE_BYTES);
    }

    /** Opens the index file, creating an empty one if missing. A trailing partial entry is ignored. */
    public static OffsetIndex open(Path file, long baseOffset) throws IOException {
        OffsetIndex index = new OffsetIndex(file, baseOffset);
        try {
            int count = index.entryCount();
            if (count > 0) {
                index.lastEntryPacked = index.packedAt(count - 1);
            }
            return index;
        } catch (IOException | RuntimeException e) {
            index.close();
            throw e;
        }
    }

    /** Adds an entry; offsets and positions must grow strictly. Single writer only. */
    public void append(long offset, int position) throws IOException {
        int relative = toRelative(offset);
        long last = lastEntryPacked;
        if (last != NO_ENTRY && (relative <= relativeOf(last) || position <= positionOf(last))) {
            throw new IllegalStateException(file() + ": index entry (" + offset + ", " + position
                    + ") does not follow (" + (baseOffset + relativeOf(last)) + ", " + positionOf(last) + ")");
        }
        writeEntry(ByteBuffer.allocate(ENTRY_SIZE_BYTES)
                .putInt(relative)
                .putInt(position)
                .flip());
        lastEntryPacked = pack(relative, position);
    }

    /**
     * File position of the batch with the largest indexed offset at or below {@code targetOffset};
     * 0 when no entry qualifies. The batch holding {@code targetOffset} starts at or after it.
     */
    public int lookup(long targetOffset) throws IOException {
        if (targetOffset < baseOffset) {
            return 0;
        }
        long target = Math.min(targetOffset - baseOffset, Integer.MAX_VALUE);
        long last = lastEntryPacked;
        int count = entryCount();
        if (last == NO_ENTRY || count == 0) {
            return 0;
        }
        if (relativeOf(last) <= target) {
            return positionOf(last);
        }
        int found = lastEntryWhere(count - 1, i -> relativeOf(packedAt(i)) <= target);
        return found < 0 ? 0 : positionOf(packedAt(found));
    }

    /**
     * The last entry at or before file position {@code maxPosition} whose offset is at most
     * {@code maxOffset}, or null. Both fields grow with the entry number, so it is the earlier of the
     * last entry meeting each bound.
     */
    public Entry lastEntryWithin(long maxPosition, long maxOffset) throws IOException {
        int count = entryCount();
        if (count == 0 || maxOffset < baseOffset || maxPosition < 0) {
            return null;
        }
        long maxRelative = Math.min(maxOffset - baseOffset, Integer.MAX_VALUE);
        int byPosition = lastEntryWhere(count, i -> positionOf(packedAt(i)) <= maxPosition);
        int byOffset = lastEntryWhere(count, i -> relativeOf(packedAt(i)) <= maxRelative);
        int found = Math.min(byPosition, byOffset);
        return found < 0 ? null : entry(found);
    }

    public Entry entry(int i) throws IOException {
        long packed = packedAt(i);
        return new Entry(baseOffset + relativeOf(packed), positionOf(packed));
    }

    /** The last entry, or null when the index is empty. */
    public Entry lastEntry() {
        long last = lastEntryPacked;
        return last == NO_ENTRY ? null : new Entry(baseOffset + relativeOf(last), positionOf(last));
    }

    @Override
    public void clear() throws IOException {
        super.clear();
        lastEntryPacked = NO_ENTRY;
    }

    private long packedAt(int i) throws IOException {
        return readEntry(i).getLong(0);
    }

    private static long pack(int relative, int position) {
        return ((long) relative << 32) | (position & 0xFFFF_FFFFL);
    }

    private static int relativeOf(long packed) {
        return (int) (packed >>> 32);
    }

    private static int positionOf(long packed) {
        return (int) packed;
    }
}

package io.varve.storage.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Sparse time index of one segment: 12-byte entries (int64 timestamp, int32 offset relative to the
 * segment's base offset). An entry (T, o) says: the segment's largest batch timestamp first reached T
 * in the batch whose base offset is o, so every batch before o has a max timestamp below T.
 * Timestamps grow strictly and offsets never go back. The last entry of a rolled segment holds the
 * segment's largest timestamp, which time-based retention reads without touching the log.
 */
public final class TimeIndex extends IndexFile {

    public static final int ENTRY_SIZE_BYTES = 12;

    /** One entry with its offset made absolute. */
    public record Entry(long timestampMs, long offset) {}

    private volatile Entry lastEntry;

    private TimeIndex(Path file, long baseOffset) throws IOException {
        super(file, baseOffset, ENTRY_SIZE_BYTES);
    }

    /** Opens the index file, creating an empty one if missing. A trailing partial entry is ignored. */
    public static TimeIndex open(Path file, long baseOffset) throws IOException {
        TimeIndex index = new TimeIndex(file, baseOffset);
        try {
            int count = index.entryCount();
            if (count > 0) {
                index.lastEntry = index.entry(count - 1);
            }
            return index;
        } catch (IOException | RuntimeException e) {
            index.close();
            throw e;
        }
    }

    /** The last entry, or null when the index is empty. */
    public Entry lastEntry() {
        return lastEntry;
    }

    /**
     * Adds (timestampMs, offset) when the timestamp is above the last entry's; returns whether it did.
     * The offset may not go back. Single writer only.
     */
    public boolean maybeAppend(long timestampMs, long offset) throws IOException {
        Entry last = lastEntry;
        if (last != null && timestampMs <= last.timestampMs()) {
            return false;
        }
        if (last != null && offset < last.offset()) {
            throw new IllegalStateException(file() + ": time index entry (" + timestampMs + ", " + offset
                    + ") goes back from offset " + last.offset());
        }
        int relative = toRelative(offset);
        writeEntry(ByteBuffer.allocate(ENTRY_SIZE_BYTES)
                .putLong(timestampMs)
                .putInt(relative)
                .flip());
        lastEntry = new Entry(timestampMs, offset);
        return true;
    }

    /** The entry with the largest timestamp at or below {@code timestampMs}, or null when none is. */
    public Entry lookup(long timestampMs) throws IOException {
        Entry last = lastEntry;
        int count = entryCount();
        if (last == null || count == 0) {
            return null;
        }
        if (last.timestampMs() <= timestampMs) {
            return last;
        }
        int found = lastEntryWhere(count - 1, i -> readEntry(i).getLong(0) <= timestampMs);
        return found < 0 ? null : entry(found);
    }

    public Entry entry(int i) throws IOException {
        ByteBuffer bytes = readEntry(i);
        return new Entry(bytes.getLong(0), baseOffset + bytes.getInt(Long.BYTES));
    }

    @Override
    public void clear() throws IOException {
        super.clear();
        lastEntry = null;
    }
}

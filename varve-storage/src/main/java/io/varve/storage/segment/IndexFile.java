package io.varve.storage.segment;

import io.varve.storage.fs.DurableFiles;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A sparse index file of fixed-size entries, written with positional writes by one appender and read by
 * any number of readers through a read-only memory map. The file holds exactly the entries (no
 * preallocation); {@link #entryCount()} is published only after an entry's bytes are written, so
 * readers never look at a half-written entry. A trailing partial entry (torn write) is ignored.
 *
 * <p>Entries are never rewritten once written, so a map of the first entries stays valid while the
 * appender adds more: a rolled segment's index is mapped once, on its first lookup; the active segment's
 * is mapped again whenever it has doubled since, and entries past the map are read with a positional read
 * meanwhile. The file only shrinks in {@link #clear()} (recovery, before any reader), which drops the map.
 * Maps are not unmapped explicitly: a reader may still hold one, and the JVM releases it once unreachable
 * (an index is at most log.index.size.max.bytes).
 */
abstract class IndexFile implements Closeable {

    /** A monotone test over entry numbers: true for a prefix of the entries, false after. */
    @FunctionalInterface
    interface EntryTest {
        boolean test(int entry) throws IOException;
    }

    protected final long baseOffset;
    private final int entrySizeBytes;
    private final FileChannel channel;
    private volatile Path file;
    private volatile int entryCount;
    /** Read-only map of the first entries, or null before the first lookup. */
    private volatile ByteBuffer mapped;

    protected IndexFile(Path file, long baseOffset, int entrySizeBytes) throws IOException {
        this.file = file;
        this.baseOffset = baseOffset;
        this.entrySizeBytes = entrySizeBytes;
        this.channel =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            this.entryCount = (int) Math.min(channel.size() / entrySizeBytes, Integer.MAX_VALUE);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    public final Path file() {
        return file;
    }

    public final int entryCount() {
        return entryCount;
    }

    /** True when the file's length is not a whole number of entries. */
    public final boolean hasPartialEntry() throws IOException {
        return channel.size() % entrySizeBytes != 0;
    }

    /** True once the index holds {@code maxIndexSizeBytes} worth of entries (always room for one). */
    public final boolean isFull(int maxIndexSizeBytes) {
        return entryCount >= Math.max(1, maxIndexSizeBytes / entrySizeBytes);
    }

    /** Drops every entry (the index is about to be rebuilt). */
    public void clear() throws IOException {
        mapped = null;
        channel.truncate(0);
        entryCount = 0;
    }

    /** Renames the file, replacing any file at {@code target}; the open channel keeps working. */
    public final void renameTo(Path target) throws IOException {
        Files.move(file, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        file = target;
    }

    public final void flush() throws IOException {
        channel.force(true);
    }

    @Override
    public final void close() throws IOException {
        mapped = null;
        channel.close();
    }

    /** The bytes of entry {@code i} (a view of the map, or a fresh buffer past it); the caller only reads them. */
    protected final ByteBuffer readEntry(int i) throws IOException {
        int position = i * entrySizeBytes;
        ByteBuffer map = mapped;
        if (map == null || map.capacity() - position < entrySizeBytes) {
            map = mapIfGrown();
        }
        if (map != null && map.capacity() - position >= entrySizeBytes) {
            return map.slice(position, entrySizeBytes);
        }
        ByteBuffer bytes = ByteBuffer.allocate(entrySizeBytes);
        DurableFiles.readFully(channel, bytes, (long) position);
        return bytes.flip();
    }

    /** Maps the entries written so far when there is no map yet or they have doubled since the last one. */
    private synchronized ByteBuffer mapIfGrown() throws IOException {
        ByteBuffer map = mapped;
        int mappedEntries = map == null ? 0 : map.capacity() / entrySizeBytes;
        int count = entryCount;
        if (count > 0 && count >= 2 * mappedEntries) {
            map = channel.map(FileChannel.MapMode.READ_ONLY, 0, (long) count * entrySizeBytes);
            mapped = map;
        }
        return map;
    }

    /** Writes the next entry then publishes it; single writer only. */
    protected final void writeEntry(ByteBuffer entry) throws IOException {
        if (entry.remaining() != entrySizeBytes) {
            throw new IllegalArgumentException("Entry of " + entry.remaining() + " bytes, expected " + entrySizeBytes);
        }
        int count = entryCount;
        DurableFiles.writeFully(channel, entry, (long) count * entrySizeBytes);
        entryCount = count + 1;
    }

    /** Largest entry number below {@code count} passing {@code test}, or -1 when none does. */
    protected static int lastEntryWhere(int count, EntryTest test) throws IOException {
        int low = 0;
        int high = count - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (test.test(mid)) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found;
    }

    /** {@code offset} relative to the segment's base offset, which must fit an int32. */
    protected final int toRelative(long offset) {
        long relative = offset - baseOffset;
        if (relative < 0 || relative > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    file + ": offset " + offset + " is not within int32 of base " + baseOffset);
        }
        return (int) relative;
    }
}

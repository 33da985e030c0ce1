package io.varve.storage.segment;

import io.varve.storage.fs.DurableFiles;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A sparse index file of fixed-size entries that holds no file descriptor: readers and the one appender go
 * through memory maps, and a descriptor is open only for the few system calls that map, grow, trim or fsync the
 * file. This is what lets a node hold tens of thousands of segments within the open-file limit (a segment then
 * costs at most the descriptor of its {@code .log}).
 *
 * <p>A sealed index (a rolled segment's, or any index just opened) holds exactly its entries; it is mapped read-only
 * on its first lookup. Appending unseals it: the file is extended with written zeros (so the blocks are allocated
 * and a full disk fails the extension with an IOException, never a write into the map) in geometrically growing
 * steps and mapped read-write; {@link #entryCount()} is published only after an entry's bytes are in the map, so
 * readers never see a half-written entry. {@link #seal()} trims the file back to its entries and fsyncs it: it is
 * called when the segment rolls, at clean shutdown and after an index rebuild, so only the active segment of a log
 * that crashed can have zeros after its entries, and recovery rebuilds that segment's indexes. A trailing partial
 * entry (torn write) is ignored. Maps are not unmapped explicitly: a reader may still hold one, and the JVM releases
 * it once unreachable.
 */
abstract class IndexFile implements Closeable {

    /** The first extension of an unsealed file, in entries; each later one doubles the file. */
    private static final int FIRST_GROWTH_ENTRIES = 512;

    /** A monotone test over entry numbers: true for a prefix of the entries, false after. */
    @FunctionalInterface
    interface EntryTest {
        boolean test(int entry) throws IOException;
    }

    protected final long baseOffset;
    private final int entrySizeBytes;
    private volatile Path file;
    private volatile int entryCount;
    /** The file's length as last seen or set by this object. */
    private volatile long fileSizeBytes;
    /** A map covering at least the published entries, or null before the first lookup or append. */
    private volatile ByteBuffer mapped;
    /** Appender only: the read-write map while unsealed (covers the whole extended file), else null. */
    private MappedByteBuffer writable;

    protected IndexFile(Path file, long baseOffset, int entrySizeBytes) throws IOException {
        this.file = file;
        this.baseOffset = baseOffset;
        this.entrySizeBytes = entrySizeBytes;
        long size;
        try {
            size = Files.size(file);
        } catch (NoSuchFileException e) {
            Files.createFile(file);
            size = 0;
        }
        this.fileSizeBytes = size;
        this.entryCount = (int) Math.min(size / entrySizeBytes, Integer.MAX_VALUE);
    }

    public final Path file() {
        return file;
    }

    public final int entryCount() {
        return entryCount;
    }

    /** True when the file's length is not a whole number of entries. */
    public final boolean hasPartialEntry() {
        return fileSizeBytes % entrySizeBytes != 0;
    }

    /** True once the index holds {@code maxIndexSizeBytes} worth of entries (always room for one). */
    public final boolean isFull(int maxIndexSizeBytes) {
        return entryCount >= Math.max(1, maxIndexSizeBytes / entrySizeBytes);
    }

    /** Drops every entry (the index is about to be rebuilt). */
    public synchronized void clear() throws IOException {
        mapped = null;
        writable = null;
        try (FileChannel channel = DurableFiles.openFollowingRenames(this::file, StandardOpenOption.WRITE)) {
            channel.truncate(0);
        }
        fileSizeBytes = 0;
        entryCount = 0;
    }

    /** Renames the file, replacing any file at {@code target}; maps keep working. */
    public final synchronized void renameTo(Path target) throws IOException {
        Files.move(file, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        file = target;
    }

    /** Makes the entries written so far durable (the file may still be longer than its entries: see the class). */
    public final synchronized void flush() throws IOException {
        MappedByteBuffer map = writable;
        if (map != null) {
            map.force();
        }
        try (FileChannel channel = DurableFiles.openFollowingRenames(this::file, StandardOpenOption.READ)) {
            channel.force(true); // the extensions' length
        }
    }

    /** Trims the file to exactly its entries and fsyncs it; appending later unseals it again. */
    public final synchronized void seal() throws IOException {
        trim(true);
    }

    /** {@link #seal()} without the fsync, which a later {@link #flush()} does. */
    public final synchronized void sealUnsynced() throws IOException {
        trim(false);
    }

    private void trim(boolean fsync) throws IOException {
        MappedByteBuffer map = writable;
        long exactBytes = (long) entryCount * entrySizeBytes;
        if (map == null && fileSizeBytes == exactBytes) {
            return;
        }
        if (map != null && fsync) {
            map.force();
        }
        try (FileChannel channel = DurableFiles.openFollowingRenames(this::file, StandardOpenOption.WRITE)) {
            if (channel.size() > exactBytes) {
                channel.truncate(exactBytes);
            }
            if (fsync) {
                channel.force(true);
            }
        }
        fileSizeBytes = exactBytes;
        writable = null; // readers keep the map: every entry they read lies below the new length
    }

    /**
     * Trims an unsealed index to its entries without an fsync (ignoring a file deleted meanwhile): a clean shutdown
     * sealed it already, and a log being deleted needs no durability. The index holds nothing else to release.
     */
    @Override
    public final synchronized void close() throws IOException {
        if (writable != null) {
            try {
                trim(false);
            } catch (NoSuchFileException e) {
                writable = null;
            }
        }
    }

    /** The bytes of entry {@code i} (a view of the map); the caller only reads them. */
    protected final ByteBuffer readEntry(int i) throws IOException {
        int position = i * entrySizeBytes;
        ByteBuffer map = mapped;
        if (map == null || map.capacity() - position < entrySizeBytes) {
            map = mapEntries(i + 1);
        }
        return map.slice(position, entrySizeBytes);
    }

    /** Maps the published entries read-only when no map covers entry {@code entries - 1} yet. */
    private synchronized ByteBuffer mapEntries(int entries) throws IOException {
        ByteBuffer map = mapped;
        if (map != null && map.capacity() >= entries * entrySizeBytes) {
            return map;
        }
        int count = entryCount;
        if (entries > count) {
            throw new IllegalArgumentException(file + ": entry " + (entries - 1) + " of " + count);
        }
        try (FileChannel channel = DurableFiles.openFollowingRenames(this::file, StandardOpenOption.READ)) {
            map = channel.map(FileChannel.MapMode.READ_ONLY, 0, (long) count * entrySizeBytes);
        }
        mapped = map;
        return map;
    }

    /** Writes the next entry then publishes it; single writer only. */
    protected final synchronized void writeEntry(ByteBuffer entry) throws IOException {
        if (entry.remaining() != entrySizeBytes) {
            throw new IllegalArgumentException("Entry of " + entry.remaining() + " bytes, expected " + entrySizeBytes);
        }
        int count = entryCount;
        long endBytes = (long) (count + 1) * entrySizeBytes;
        MappedByteBuffer map = writable;
        if (map == null || map.capacity() < endBytes) {
            map = grow(count);
        }
        map.put(count * entrySizeBytes, entry, entry.position(), entrySizeBytes);
        entryCount = count + 1;
    }

    /**
     * Extends the file with written zeros past entry {@code count} (doubling it, at least
     * {@link #FIRST_GROWTH_ENTRIES}) and maps all of it read-write; a partial tail entry is overwritten.
     */
    private MappedByteBuffer grow(int count) throws IOException {
        long usedBytes = (long) count * entrySizeBytes;
        long entries = Math.max(FIRST_GROWTH_ENTRIES, 2L * count);
        long newSizeBytes =
                Math.min(entries * entrySizeBytes, (Integer.MAX_VALUE / entrySizeBytes) * (long) entrySizeBytes);
        if (newSizeBytes <= usedBytes) {
            throw new IllegalStateException(file + ": index cannot grow past " + count + " entries");
        }
        MappedByteBuffer map;
        try (FileChannel channel =
                DurableFiles.openFollowingRenames(this::file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(64 * 1024, newSizeBytes - usedBytes));
            for (long at = usedBytes; at < newSizeBytes; ) {
                int chunkBytes = (int) Math.min(zeros.capacity(), newSizeBytes - at);
                zeros.clear().limit(chunkBytes);
                DurableFiles.writeFully(channel, zeros, at);
                at += chunkBytes;
            }
            map = channel.map(FileChannel.MapMode.READ_WRITE, 0, newSizeBytes);
        }
        fileSizeBytes = newSizeBytes;
        writable = map;
        mapped = map; // published before the entry count that makes its new entries visible
        return map;
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

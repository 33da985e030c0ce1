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
import java.util.ArrayList;
import java.util.List;

/**
 * A segment's aborted-transaction index, {@code <baseOffset>.txnindex}: one fixed-size entry per ABORT
 * marker in the segment, in marker order (Kafka's layout, big-endian):
 * <pre>
 * int16 version 0 | int64 producerId | int64 firstOffset | int64 lastOffset | int64 lastStableOffset
 * </pre>
 * The file exists only once the segment holds an abort. One appender (under the log's lock), any number
 * of lock-free readers: the entry count is published after the entry's bytes are written. A trailing
 * partial entry (torn write) is ignored and cut off by the next write.
 */
public final class TransactionIndex implements Closeable {

    static final int ENTRY_BYTES = 2 + 8 + 8 + 8 + 8;
    private static final short ENTRY_VERSION = 0;

    /** Aborted transactions overlapping a range; {@code complete} when no later segment can add any. */
    public record Collected(List<AbortedTxn> aborted, boolean complete) {}

    private volatile Path file;
    /** False until the file exists. */
    private volatile boolean fileExists;

    private volatile int entryCount;

    private TransactionIndex(Path file, boolean fileExists, int entryCount) {
        this.file = file;
        this.fileExists = fileExists;
        this.entryCount = entryCount;
    }

    /**
     * Opens the index at {@code file} if it exists, else an empty one that creates the file on its first entry. It
     * holds no file descriptor: aborts are rare, so each operation opens the file for itself.
     */
    public static TransactionIndex open(Path file) throws IOException {
        if (!Files.exists(file)) {
            return new TransactionIndex(file, false, 0);
        }
        return new TransactionIndex(file, true, (int) Math.min(Files.size(file) / ENTRY_BYTES, Integer.MAX_VALUE));
    }

    /** Where the index lives (it may not exist yet). */
    public Path file() {
        return file;
    }

    /** True when the file exists: the segment holds at least one abort (or held one before a truncation). */
    public boolean exists() {
        return fileExists;
    }

    public int entryCount() {
        return entryCount;
    }

    /** Adds an entry; markers come in offset order, so {@code txn} must end after the last entry. */
    public synchronized void append(AbortedTxn txn) throws IOException {
        int count = entryCount;
        if (count > 0) {
            AbortedTxn last = read(count - 1);
            if (txn.lastOffset() <= last.lastOffset()) {
                throw new IllegalStateException(file + ": aborted transaction ending at " + txn.lastOffset()
                        + " after one ending at " + last.lastOffset());
            }
        }
        ByteBuffer entry = ByteBuffer.allocate(ENTRY_BYTES)
                .putShort(ENTRY_VERSION)
                .putLong(txn.producerId())
                .putLong(txn.firstOffset())
                .putLong(txn.lastOffset())
                .putLong(txn.lastStableOffset())
                .flip();
        long position = (long) count * ENTRY_BYTES;
        try (FileChannel ch =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            fileExists = true;
            DurableFiles.writeFully(ch, entry, position);
            if (ch.size() > position + ENTRY_BYTES) {
                ch.truncate(position + ENTRY_BYTES); // a torn tail of an earlier life
            }
        }
        entryCount = count + 1;
    }

    /** Every entry, in marker order. */
    public List<AbortedTxn> entries() throws IOException {
        int count = entryCount;
        List<AbortedTxn> all = new ArrayList<>(count);
        ByteBuffer bytes = readEntries(count);
        for (int i = 0; i < count; i++) {
            all.add(decode(bytes, i * ENTRY_BYTES));
        }
        return all;
    }

    /**
     * The aborted transactions overlapping [{@code fetchOffset}, {@code upperBoundOffset}): ending at or after
     * the first and starting before the second. Complete once an entry's last stable offset reaches the upper
     * bound: every transaction aborted later started at or after it.
     */
    public Collected collect(long fetchOffset, long upperBoundOffset) throws IOException {
        List<AbortedTxn> found = new ArrayList<>();
        for (AbortedTxn txn : entries()) {
            if (txn.lastOffset() >= fetchOffset && txn.firstOffset() < upperBoundOffset) {
                found.add(txn);
            }
            if (txn.lastStableOffset() >= upperBoundOffset) {
                return new Collected(found, true);
            }
        }
        return new Collected(found, false);
    }

    /** Drops the entries of markers at or after {@code offset} (the log is cut there or they are rebuilt). */
    public synchronized void truncateFrom(long offset) throws IOException {
        int keep = entryCount;
        while (keep > 0 && read(keep - 1).lastOffset() >= offset) {
            keep--;
        }
        entryCount = keep;
        if (fileExists) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                if (ch.size() != (long) keep * ENTRY_BYTES) {
                    ch.truncate((long) keep * ENTRY_BYTES);
                }
            }
        }
    }

    /** Renames the file (if it exists) to {@code target}; the open channel keeps working. */
    public synchronized void renameTo(Path target) throws IOException {
        if (fileExists) {
            Files.move(file, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        file = target;
    }

    public synchronized void flush() throws IOException {
        if (fileExists) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                ch.force(true);
            }
        }
    }

    /** Nothing to release: the index holds no open file. */
    @Override
    public void close() {}

    private AbortedTxn read(int entry) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(ENTRY_BYTES);
        readAt(bytes, (long) entry * ENTRY_BYTES);
        return decode(bytes, 0);
    }

    private ByteBuffer readEntries(int count) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(count * ENTRY_BYTES);
        if (count > 0) {
            readAt(bytes, 0);
        }
        return bytes;
    }

    private void readAt(ByteBuffer bytes, long position) throws IOException {
        try (FileChannel ch = DurableFiles.openFollowingRenames(this::file, StandardOpenOption.READ)) {
            DurableFiles.readFully(ch, bytes, position);
        }
    }

    private AbortedTxn decode(ByteBuffer bytes, int at) throws IOException {
        short version = bytes.getShort(at);
        if (version != ENTRY_VERSION) {
            throw new CorruptSegmentException(file + ": transaction index entry of unknown version " + version);
        }
        try {
            return new AbortedTxn(
                    bytes.getLong(at + 2), bytes.getLong(at + 10), bytes.getLong(at + 18), bytes.getLong(at + 26));
        } catch (IllegalArgumentException e) {
            throw new CorruptSegmentException(file + ": " + e.getMessage());
        }
    }
}

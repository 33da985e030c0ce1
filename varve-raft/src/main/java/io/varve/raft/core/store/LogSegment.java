package io.varve.raft.core.store;

import io.varve.raft.core.message.LogEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One segment file of {@link EntryFrame}s, named after the offset of its first entry
 * ({@code 00000000000000000000.log}), with an in-memory sparse index (an offset every
 * {@value #INDEX_INTERVAL_BYTES} bytes) built while the file is scanned on open.
 *
 * <p>Recovery on open: a segment other than the last was fsynced whole when the next one was created, so
 * any bad frame in it is corruption and fails loudly. In the last segment a bad frame is a torn tail, and
 * truncated away, only when nothing written after it survives: the frame runs past the end of the file,
 * or it ends the file, or only zeros follow it. A bad frame with valid bytes after it fails loudly.
 */
final class LogSegment implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogSegment.class);
    static final String SUFFIX = ".log";
    static final int INDEX_INTERVAL_BYTES = 4096;
    private static final int ZERO_SCAN_CHUNK_BYTES = 64 * 1024;

    final long baseOffset;
    private final Path file;
    private final FileChannel channel;
    /** offset of an indexed entry -> file position of its frame. */
    private final NavigableMap<Long, Long> index = new TreeMap<>();

    private long endOffset;
    private long sizeBytes;
    private long flushedSizeBytes;
    private long lastIndexedPosition = -INDEX_INTERVAL_BYTES;
    private ByteBuffer frameBuffer = ByteBuffer.allocate(4096);

    private LogSegment(long baseOffset, Path file, FileChannel channel) {
        this.baseOffset = baseOffset;
        this.file = file;
        this.channel = channel;
        this.endOffset = baseOffset;
    }

    static Path fileOf(Path dir, long baseOffset) {
        return dir.resolve(String.format("%020d%s", baseOffset, SUFFIX));
    }

    /** The base offset a segment file name encodes, or -1 if the name is not a segment's. */
    static long baseOffsetOf(Path file) {
        String name = file.getFileName().toString();
        if (name.length() != 20 + SUFFIX.length() || !name.endsWith(SUFFIX)) {
            return -1;
        }
        try {
            return Long.parseLong(name.substring(0, 20));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Creates an empty segment; the directory entry is durable when this returns. */
    static LogSegment create(Path dir, long baseOffset) {
        Path file = fileOf(dir, baseOffset);
        try {
            FileChannel channel = FileChannel.open(
                    file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
            DurableIo.fsyncDirectory(dir);
            return new LogSegment(baseOffset, file, channel);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create segment " + file, e);
        }
    }

    /**
     * Opens and scans a segment, handing each entry to {@code visitor} in order; {@code last} says whether
     * a torn tail may be dropped (see the class comment). The recovered bytes are fsynced.
     */
    static LogSegment open(Path dir, long baseOffset, boolean last, Consumer<LogEntry> visitor) {
        Path file = fileOf(dir, baseOffset);
        try {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            LogSegment segment = new LogSegment(baseOffset, file, channel);
            try {
                segment.recover(last, visitor);
            } catch (RuntimeException e) {
                channel.close();
                throw e;
            }
            return segment;
        } catch (IOException e) {
            throw new UncheckedIOException("could not open segment " + file, e);
        }
    }

    private void recover(boolean last, Consumer<LogEntry> visitor) throws IOException {
        long fileBytes = channel.size();
        long position = 0;
        while (position < fileBytes) {
            String problem = null;
            long frameEnd = -1;
            LogEntry entry = null;
            if (fileBytes - position < EntryFrame.LENGTH_BYTES) {
                problem = "a partial length field";
            } else {
                int frameBytes = readInt(position);
                frameEnd = position + EntryFrame.LENGTH_BYTES + frameBytes;
                if (!EntryFrame.plausibleLength(frameBytes)) {
                    problem = "an impossible length " + frameBytes;
                    frameEnd = position + EntryFrame.LENGTH_BYTES;
                } else if (frameEnd > fileBytes) {
                    problem = "a frame of " + frameBytes + " bytes running past the end of the file";
                } else {
                    entry = readBody(position, frameBytes);
                    problem = entry == null ? "a frame whose checksum or header is wrong" : null;
                }
            }
            if (problem != null) {
                boolean nothingAfter = frameEnd < 0 || frameEnd >= fileBytes || onlyZerosFrom(frameEnd, fileBytes);
                if (!last || !nothingAfter) {
                    throw new CorruptStoreException("segment " + file + " holds " + problem + " at position " + position
                            + " with data after it: corrupt, not torn; refusing to open the log");
                }
                LOG.warn(
                        "Dropping the torn tail of {}: {} bytes from position {} ({}), after offset {}",
                        file,
                        fileBytes - position,
                        position,
                        problem,
                        endOffset - 1);
                channel.truncate(position);
                break;
            }
            if (entry.offset() != endOffset) {
                throw new CorruptStoreException("segment " + file + " holds offset " + entry.offset() + " at position "
                        + position + " where " + endOffset + " was expected");
            }
            visitor.accept(entry);
            track(entry.offset(), position, frameEnd);
            position = frameEnd;
        }
        channel.force(true);
        flushedSizeBytes = sizeBytes;
    }

    long endOffset() {
        return endOffset;
    }

    long sizeBytes() {
        return sizeBytes;
    }

    long flushedSizeBytes() {
        return flushedSizeBytes;
    }

    Path file() {
        return file;
    }

    /** Appends entries that continue this segment; not durable until {@link #flush()}. */
    void append(List<LogEntry> entries) {
        int bytes = 0;
        for (LogEntry entry : entries) {
            bytes = Math.addExact(bytes, EntryFrame.sizeBytes(entry));
        }
        ByteBuffer out = ByteBuffer.allocate(bytes);
        long position = sizeBytes;
        for (LogEntry entry : entries) {
            if (entry.offset() != endOffset) {
                throw new IllegalArgumentException("append " + entry + " to " + file + " ending at " + endOffset);
            }
            int frameStart = out.position();
            EntryFrame.encode(entry, out);
            track(entry.offset(), position + frameStart, position + out.position());
        }
        out.flip();
        try {
            DurableIo.writeFully(channel, out, position);
        } catch (IOException e) {
            throw new UncheckedIOException("could not append to " + file, e);
        }
    }

    void flush() {
        if (flushedSizeBytes == sizeBytes) {
            return;
        }
        try {
            channel.force(false);
        } catch (IOException e) {
            throw new UncheckedIOException("could not fsync " + file, e);
        }
        flushedSizeBytes = sizeBytes;
    }

    /** Adds to {@code out} the entries from {@code fromOffset} below {@code toOffsetExclusive}, at most {@code max}. */
    void read(long fromOffset, long toOffsetExclusive, int max, List<LogEntry> out) {
        long position = positionNear(fromOffset);
        int added = 0;
        while (position < sizeBytes && added < max) {
            int frameBytes = readInt(position);
            LogEntry entry = EntryFrame.plausibleLength(frameBytes) ? readBody(position, frameBytes) : null;
            if (entry == null) {
                throw new CorruptStoreException("the entry at position " + position + " of " + file
                        + " was valid when written and is now corrupt");
            }
            position += EntryFrame.LENGTH_BYTES + frameBytes;
            if (entry.offset() >= toOffsetExclusive) {
                return;
            }
            if (entry.offset() >= fromOffset) {
                out.add(entry);
                added++;
            }
        }
    }

    /** Removes the entries at and after {@code offset}; durable when it returns. */
    void truncateTo(long offset) {
        if (offset < baseOffset || offset > endOffset) {
            throw new IllegalArgumentException(
                    "truncate " + file + " to " + offset + " outside [" + baseOffset + ", " + endOffset + "]");
        }
        if (offset == endOffset) {
            return;
        }
        Map.Entry<Long, Long> floor = index.floorEntry(offset);
        long position = floor == null ? 0 : floor.getValue();
        for (long at = floor == null ? baseOffset : floor.getKey(); at < offset; at++) {
            position += EntryFrame.LENGTH_BYTES + readInt(position);
        }
        try {
            channel.truncate(position);
            channel.force(true);
        } catch (IOException e) {
            throw new UncheckedIOException("could not truncate " + file, e);
        }
        sizeBytes = position;
        flushedSizeBytes = Math.min(flushedSizeBytes, position);
        endOffset = offset;
        index.tailMap(offset, true).clear();
        lastIndexedPosition =
                index.isEmpty() ? -INDEX_INTERVAL_BYTES : index.lastEntry().getValue();
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("could not close " + file, e);
        }
    }

    /** Closes and deletes the file; the caller fsyncs the directory. */
    void delete() {
        close();
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + file, e);
        }
    }

    private void track(long offset, long position, long frameEnd) {
        if (position - lastIndexedPosition >= INDEX_INTERVAL_BYTES || index.isEmpty()) {
            index.put(offset, position);
            lastIndexedPosition = position;
        }
        endOffset = offset + 1;
        sizeBytes = frameEnd;
    }

    private long positionNear(long offset) {
        Map.Entry<Long, Long> floor = index.floorEntry(offset);
        return floor == null ? 0 : floor.getValue();
    }

    private int readInt(long position) {
        ByteBuffer four = ByteBuffer.allocate(4);
        readAt(four, position);
        return four.getInt(0);
    }

    private LogEntry readBody(long position, int frameBytes) {
        if (frameBuffer.capacity() < frameBytes) {
            frameBuffer = ByteBuffer.allocate(Math.max(frameBytes, frameBuffer.capacity() * 2));
        }
        frameBuffer.clear().limit(frameBytes);
        readAt(frameBuffer, position + EntryFrame.LENGTH_BYTES);
        frameBuffer.flip();
        return EntryFrame.decodeOrNull(frameBuffer);
    }

    private boolean onlyZerosFrom(long position, long fileBytes) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocate(ZERO_SCAN_CHUNK_BYTES);
        for (long at = position; at < fileBytes; at += chunk.limit()) {
            chunk.clear().limit((int) Math.min(ZERO_SCAN_CHUNK_BYTES, fileBytes - at));
            DurableIo.readFully(channel, chunk, at);
            for (int i = 0; i < chunk.limit(); i++) {
                if (chunk.get(i) != 0) {
                    return false;
                }
            }
        }
        return true;
    }

    private void readAt(ByteBuffer target, long position) {
        try {
            DurableIo.readFully(channel, target, position);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + file + " at " + position, e);
        }
    }
}

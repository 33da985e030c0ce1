package io.varve.tiered.metadata;

import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentAdded;
import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentStateChanged;
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
import java.util.Objects;
import java.util.function.Function;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Durable remote log metadata of one log directory: an append-only file of events, each written and fsynced before
 * it is applied to the in-memory {@link RemoteLogMetadataCache}, and replayed on open.
 *
 * <p>File layout: header {@code magic:int32 ("VRLM") version:int32}, then records
 * {@code length:int32 crc32c:int32 body:byte[length]} where the CRC covers the body ({@link RemoteLogMetadataCodec}).
 * A crash can only tear the last record (every append is fsynced before the next one starts), so an incomplete or
 * CRC-failing final record, or a zero-filled tail, is truncated on open. A bad record followed by more data is
 * corruption and fails the open loudly. {@link #compact()} rewrites the file with only the live segments
 * (temp file, fsync, atomic rename).
 *
 * <p>Thread-safe: appends and queries are serialised on this object.
 */
public final class RemoteLogMetadataStore implements Closeable {
    public static final String FILE_NAME = "remote-log-metadata.log";
    private static final Logger log = LoggerFactory.getLogger(RemoteLogMetadataStore.class);
    private static final int MAGIC = 0x56524C4D; // "VRLM"
    private static final int VERSION = 1;
    private static final int HEADER_BYTES = 8;
    private static final int RECORD_OVERHEAD_BYTES = 8;

    private final Path file;
    private final RemoteLogMetadataCache cache = new RemoteLogMetadataCache();
    private FileChannel channel;
    private long fileBytes;
    private long recordCount;

    private RemoteLogMetadataStore(Path file) {
        this.file = file;
    }

    /** Opens (creating if needed) the store file {@value #FILE_NAME} in {@code dir} and replays it. */
    public static RemoteLogMetadataStore open(Path dir) throws IOException {
        Files.createDirectories(dir);
        RemoteLogMetadataStore store = new RemoteLogMetadataStore(dir.resolve(FILE_NAME));
        store.load();
        return store;
    }

    private void load() throws IOException {
        Files.deleteIfExists(compactionTempFile());
        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        long size = channel.size();
        if (size < HEADER_BYTES) {
            // new file, or a crash while writing the header: nothing was ever appended
            channel.truncate(0);
            channel.write(header(), 0);
            channel.force(true);
            fileBytes = HEADER_BYTES;
            return;
        }
        ByteBuffer header = readFully(0, HEADER_BYTES);
        int magic = header.getInt();
        int version = header.getInt();
        if (magic != MAGIC || version != VERSION) {
            throw new CorruptRemoteLogMetadataException(file + " is not a remote log metadata file (magic "
                    + Integer.toHexString(magic) + ", version " + version + ")");
        }
        long position = HEADER_BYTES;
        while (position < size) {
            long remaining = size - position;
            ByteBuffer body = remaining >= RECORD_OVERHEAD_BYTES ? readRecord(position, remaining) : null;
            if (body == null) {
                if (!isZeroFilled(position, size)) {
                    long recordLength = remaining >= 4 ? readFully(position, 4).getInt() : -1;
                    boolean lastRecord = remaining < RECORD_OVERHEAD_BYTES
                            || recordLength < 0
                            || RECORD_OVERHEAD_BYTES + recordLength >= remaining;
                    if (!lastRecord) {
                        throw new CorruptRemoteLogMetadataException("corrupt record at byte " + position + " of " + file
                                + " with " + remaining + " bytes after it");
                    }
                }
                log.warn("Truncating torn tail of {}: {} bytes at byte {}", file, remaining, position);
                channel.truncate(position);
                channel.force(true);
                break;
            }
            RemoteLogMetadataEvent event;
            try {
                event = RemoteLogMetadataCodec.decode(body);
            } catch (IllegalArgumentException e) {
                throw new CorruptRemoteLogMetadataException(
                        "undecodable record at byte " + position + " of " + file + ": " + e.getMessage());
            }
            try {
                cache.apply(event);
            } catch (IllegalRemoteSegmentTransitionException e) {
                throw new CorruptRemoteLogMetadataException(
                        "record at byte " + position + " of " + file + " does not replay: " + e.getMessage());
            }
            position += RECORD_OVERHEAD_BYTES + body.capacity();
            recordCount++;
        }
        fileBytes = position;
        log.info(
                "Loaded remote log metadata from {}: {} events, {} live segments",
                file,
                recordCount,
                cache.allSegments().size());
    }

    /** The body of the well-formed record at {@code position}, or null if it is incomplete or fails its CRC. */
    private ByteBuffer readRecord(long position, long remaining) throws IOException {
        ByteBuffer frame = readFully(position, RECORD_OVERHEAD_BYTES);
        int length = frame.getInt();
        int crc = frame.getInt();
        if (length <= 0
                || length > RemoteLogMetadataCodec.MAX_EVENT_BYTES
                || RECORD_OVERHEAD_BYTES + (long) length > remaining) {
            return null;
        }
        ByteBuffer body = readFully(position + RECORD_OVERHEAD_BYTES, length);
        return crc32c(body) == crc ? body : null;
    }

    private boolean isZeroFilled(long from, long to) throws IOException {
        ByteBuffer rest = readFully(from, (int) Math.min(to - from, Integer.MAX_VALUE));
        while (rest.hasRemaining()) {
            if (rest.get() != 0) {
                return false;
            }
        }
        return true;
    }

    private ByteBuffer readFully(long position, int length) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(length);
        while (buf.hasRemaining()) {
            int n = channel.read(buf, position + buf.position());
            if (n < 0) {
                throw new IOException("unexpected end of " + file + " at byte " + (position + buf.position()));
            }
        }
        return buf.flip();
    }

    /**
     * Validates {@code event}, makes it durable, then applies it.
     *
     * @return the segment's metadata after the event
     * @throws IllegalRemoteSegmentTransitionException if the lifecycle forbids it (nothing is written)
     */
    public synchronized RemoteSegmentMetadata append(RemoteLogMetadataEvent event) throws IOException {
        ensureOpen();
        cache.validate(event);
        byte[] body = RemoteLogMetadataCodec.encode(event);
        ByteBuffer record = frame(body);
        long position = fileBytes;
        while (record.hasRemaining()) {
            position += channel.write(record, position);
        }
        channel.force(false);
        fileBytes = position;
        recordCount++;
        RemoteSegmentMetadata result = cache.apply(event);
        log.info(
                "Remote segment {} [{}, {}] is now {}",
                event.segmentId(),
                result.startOffset(),
                result.endOffset(),
                result.state());
        return result;
    }

    /** Answers a query against the current state; {@code query} must not keep the cache. */
    public synchronized <T> T read(Function<RemoteLogMetadataCache, T> query) {
        ensureOpen();
        return query.apply(cache);
    }

    /** Number of events in the file (grows with every append, shrinks on {@link #compact()}). */
    public synchronized long eventCount() {
        return recordCount;
    }

    /**
     * Rewrites the file with two events at most per live segment (added, current state), dropping the history of
     * deleted segments. Crash-safe: the new file replaces the old one by atomic rename.
     */
    public synchronized void compact() throws IOException {
        ensureOpen();
        Path temp = compactionTempFile();
        List<RemoteLogMetadataEvent> events = new ArrayList<>();
        for (RemoteSegmentMetadata m : cache.allSegments()) {
            events.add(new SegmentAdded(m.withState(RemoteSegmentState.COPY_SEGMENT_STARTED, m.eventTimestampMs())));
            if (m.state() != RemoteSegmentState.COPY_SEGMENT_STARTED) {
                events.add(new SegmentStateChanged(m.segmentId(), m.state(), m.eventTimestampMs()));
            }
        }
        long bytes = HEADER_BYTES;
        try (FileChannel out = FileChannel.open(
                temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            writeFully(out, header());
            for (RemoteLogMetadataEvent event : events) {
                ByteBuffer record = frame(RemoteLogMetadataCodec.encode(event));
                bytes += record.remaining();
                writeFully(out, record);
            }
            out.force(true);
        }
        channel.close();
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        fsyncDirectory(file.getParent());
        channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        log.info("Compacted {}: {} events down to {}", file, recordCount, events.size());
        recordCount = events.size();
        fileBytes = bytes;
    }

    @Override
    public synchronized void close() throws IOException {
        if (channel != null) {
            channel.close();
            channel = null;
        }
    }

    private void ensureOpen() {
        if (channel == null) {
            throw new IllegalStateException("remote log metadata store " + file + " is closed");
        }
    }

    private Path compactionTempFile() {
        return file.resolveSibling(FILE_NAME + ".compacting");
    }

    private static ByteBuffer header() {
        return ByteBuffer.allocate(HEADER_BYTES).putInt(MAGIC).putInt(VERSION).flip();
    }

    private static ByteBuffer frame(byte[] body) {
        ByteBuffer record = ByteBuffer.allocate(RECORD_OVERHEAD_BYTES + body.length);
        record.putInt(body.length).putInt(crc32c(ByteBuffer.wrap(body))).put(body);
        return record.flip();
    }

    private static int crc32c(ByteBuffer body) {
        CRC32C crc = new CRC32C();
        crc.update(body.duplicate());
        return (int) crc.getValue();
    }

    private static void writeFully(FileChannel out, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            out.write(buf);
        }
    }

    static void fsyncDirectory(Path dir) {
        Objects.requireNonNull(dir, "dir");
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // some file systems do not allow opening a directory; the rename is still atomic there
            log.debug("Could not fsync directory {}: {}", dir, e.toString());
        }
    }
}

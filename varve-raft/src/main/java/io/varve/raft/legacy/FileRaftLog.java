package io.varve.raft.legacy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link RaftLog} kept in one segment file of {@link BatchFrameCodec} frames, named after its base
 * offset ({@code 00000000000000000000.log}), in the log's directory.
 *
 * <p>Opening the log scans every frame. The first frame that is incomplete, fails its CRC, or does
 * not continue the offsets and epochs of the previous frame ends the log: it and everything after
 * it are truncated, so a torn tail is never served. (Like Kafka's segment recovery, this cannot tell
 * a torn tail from corruption in the middle; a multi-voter quorum repairs either from the leader.)
 *
 * <p>An in-memory sparse index maps batch base offsets to file positions, one entry per
 * {@value #INDEX_INTERVAL_BYTES} bytes, so reads start near their batch.
 */
public final class FileRaftLog implements RaftLog {

    private static final Logger LOG = LoggerFactory.getLogger(FileRaftLog.class);

    public static final String SEGMENT_FILE_NAME = String.format("%020d.log", 0);
    static final int INDEX_INTERVAL_BYTES = 64 * 1024;

    private final Path file;
    private final FileChannel channel;
    /** base offset of an indexed batch -> file position of its frame. */
    private final NavigableMap<Long, Long> sparseIndex = new TreeMap<>();
    /** epoch -> offset of the first batch in that epoch. */
    private final NavigableMap<Integer, Long> epochStartOffsets = new TreeMap<>();

    private long endOffset;
    private long flushedEndOffset;
    private long sizeInBytes;
    private long lastIndexedPosition = -INDEX_INTERVAL_BYTES;
    private boolean closed;

    private FileRaftLog(Path file, FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    /** Opens (creating if needed) the log in {@code dir}, truncating any torn or corrupt tail. */
    public static FileRaftLog open(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(SEGMENT_FILE_NAME);
        FileChannel channel =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileRaftLog log = new FileRaftLog(file, channel);
        try {
            log.recover();
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return log;
    }

    private void recover() throws IOException {
        long fileSize = channel.size();
        long position = 0;
        FrameReader reader = new FrameReader(channel);
        while (position < fileSize) {
            LogBatch batch;
            try {
                batch = reader.readAt(position, fileSize);
                checkContinues(batch);
            } catch (CorruptFrameException e) {
                LOG.warn(
                        "Truncating {} bytes of torn or corrupt tail at offset {} (file position {}) of {}: {}",
                        fileSize - position,
                        endOffset,
                        position,
                        file,
                        e.getMessage());
                channel.truncate(position);
                channel.force(true);
                break;
            }
            track(batch, position);
            position += reader.lastFrameSizeInBytes();
        }
        sizeInBytes = position;
        flushedEndOffset = endOffset;
        LOG.info("Opened Raft log {}: endOffset={}, lastEpoch={}, {} bytes", file, endOffset, lastEpoch(), sizeInBytes);
    }

    private void checkContinues(LogBatch batch) throws CorruptFrameException {
        if (batch.baseOffset() != endOffset) {
            throw new CorruptFrameException(
                    "batch base offset " + batch.baseOffset() + " does not follow end offset " + endOffset);
        }
        if (batch.epoch() < lastEpoch()) {
            throw new CorruptFrameException("batch epoch " + batch.epoch() + " is below previous epoch " + lastEpoch());
        }
    }

    private void track(LogBatch batch, long position) {
        if (position - lastIndexedPosition >= INDEX_INTERVAL_BYTES) {
            sparseIndex.put(batch.baseOffset(), position);
            lastIndexedPosition = position;
        }
        epochStartOffsets.putIfAbsent(batch.epoch(), batch.baseOffset());
        endOffset = batch.nextOffset();
    }

    @Override
    public long endOffset() {
        return endOffset;
    }

    @Override
    public long flushedEndOffset() {
        return flushedEndOffset;
    }

    @Override
    public int lastEpoch() {
        return epochStartOffsets.isEmpty() ? 0 : epochStartOffsets.lastKey();
    }

    /** The offset of the first batch of {@code epoch}, or -1 if no batch has it. */
    public long epochStartOffset(int epoch) {
        Long offset = epochStartOffsets.get(epoch);
        return offset == null ? -1 : offset;
    }

    @Override
    public LogBatch append(int epoch, List<byte[]> payloads) throws IOException {
        ensureOpen();
        if (epoch < lastEpoch()) {
            throw new IllegalArgumentException("epoch " + epoch + " is below the log's last epoch " + lastEpoch());
        }
        LogBatch batch = new LogBatch(endOffset, epoch, payloads);
        ByteBuffer frame = BatchFrameCodec.encode(batch);
        long position = sizeInBytes;
        int frameBytes = frame.remaining();
        while (frame.hasRemaining()) {
            channel.write(frame, position + (frameBytes - frame.remaining()));
        }
        sizeInBytes += frameBytes;
        track(batch, position);
        return batch;
    }

    @Override
    public void flush() throws IOException {
        ensureOpen();
        if (flushedEndOffset < endOffset) {
            channel.force(false);
            flushedEndOffset = endOffset;
        }
    }

    @Override
    public List<LogBatch> read(long fromOffset, long toOffsetExclusive, int maxRecords) throws IOException {
        ensureOpen();
        if (fromOffset < 0 || maxRecords <= 0) {
            throw new IllegalArgumentException("fromOffset=" + fromOffset + ", maxRecords=" + maxRecords);
        }
        List<LogBatch> batches = new ArrayList<>();
        long limit = Math.min(toOffsetExclusive, endOffset);
        if (fromOffset >= limit) {
            return batches;
        }
        Map.Entry<Long, Long> start = sparseIndex.floorEntry(fromOffset);
        long position = start == null ? 0 : start.getValue();
        FrameReader reader = new FrameReader(channel);
        int records = 0;
        while (position < sizeInBytes && records < maxRecords) {
            LogBatch batch;
            try {
                batch = reader.readAt(position, sizeInBytes);
            } catch (CorruptFrameException e) {
                throw new IllegalStateException("frame at position " + position + " of " + file
                        + " was valid when written and is now corrupt: " + e.getMessage());
            }
            position += reader.lastFrameSizeInBytes();
            if (batch.lastOffset() < fromOffset) {
                continue;
            }
            if (batch.baseOffset() >= limit) {
                break;
            }
            batches.add(batch);
            records += batch.recordCount();
        }
        return batches;
    }

    @Override
    public void truncateTo(long offset) throws IOException {
        ensureOpen();
        if (offset >= endOffset) {
            return;
        }
        Map.Entry<Long, Long> start = sparseIndex.floorEntry(offset);
        long position = start == null ? 0 : start.getValue();
        FrameReader reader = new FrameReader(channel);
        while (true) {
            LogBatch batch;
            try {
                batch = reader.readAt(position, sizeInBytes);
            } catch (CorruptFrameException e) {
                throw new IllegalStateException("corrupt frame while truncating " + file + ": " + e.getMessage());
            }
            if (batch.baseOffset() == offset) {
                break;
            }
            if (batch.baseOffset() > offset) {
                throw new IllegalArgumentException("offset " + offset + " is not a batch boundary");
            }
            position += reader.lastFrameSizeInBytes();
        }
        channel.truncate(position);
        channel.force(true);
        sizeInBytes = position;
        endOffset = offset;
        flushedEndOffset = Math.min(flushedEndOffset, offset);
        sparseIndex.tailMap(offset, true).clear();
        epochStartOffsets.values().removeIf(startOffset -> startOffset >= offset);
        lastIndexedPosition = sparseIndex.isEmpty()
                ? -INDEX_INTERVAL_BYTES
                : sparseIndex.lastEntry().getValue();
        LOG.info("Truncated Raft log {} to offset {}", file, offset);
    }

    @Override
    public void close() throws IOException {
        if (!closed) {
            closed = true;
            channel.close();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("log " + file + " is closed");
        }
    }

    /** Reads one frame at a time, reusing its buffer. */
    private static final class FrameReader {
        private final FileChannel channel;
        private final ByteBuffer lengthBuffer = ByteBuffer.allocate(BatchFrameCodec.LENGTH_FIELD_BYTES);
        private ByteBuffer body = ByteBuffer.allocate(4096);
        private int lastFrameSizeInBytes;

        FrameReader(FileChannel channel) {
            this.channel = channel;
        }

        LogBatch readAt(long position, long sizeInBytes) throws IOException, CorruptFrameException {
            long available = sizeInBytes - position;
            if (available < BatchFrameCodec.LENGTH_FIELD_BYTES) {
                throw new CorruptFrameException("partial length field (" + available + " bytes)");
            }
            lengthBuffer.clear();
            readFully(lengthBuffer, position);
            int frameBytes = BatchFrameCodec.checkFrameBytes(lengthBuffer.getInt(0));
            if (available - BatchFrameCodec.LENGTH_FIELD_BYTES < frameBytes) {
                throw new CorruptFrameException("partial frame: " + frameBytes + " bytes declared, "
                        + (available - BatchFrameCodec.LENGTH_FIELD_BYTES) + " present");
            }
            if (body.capacity() < frameBytes) {
                body = ByteBuffer.allocate(Math.max(frameBytes, body.capacity() * 2));
            }
            body.clear().limit(frameBytes);
            readFully(body, position + BatchFrameCodec.LENGTH_FIELD_BYTES);
            body.flip();
            lastFrameSizeInBytes = BatchFrameCodec.LENGTH_FIELD_BYTES + frameBytes;
            return BatchFrameCodec.decode(body);
        }

        int lastFrameSizeInBytes() {
            return lastFrameSizeInBytes;
        }

        private void readFully(ByteBuffer buffer, long position) throws IOException {
            long at = position;
            while (buffer.hasRemaining()) {
                int read = channel.read(buffer, at);
                if (read < 0) {
                    throw new IOException("unexpected end of file at position " + at);
                }
                at += read;
            }
        }
    }
}

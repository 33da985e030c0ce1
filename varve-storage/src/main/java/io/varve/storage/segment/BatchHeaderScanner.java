package io.varve.storage.segment;

import static io.varve.storage.batch.RecordBatchV2.*;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.fs.DurableFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

/**
 * Walks the batch headers of a file region batch by batch without decoding records. Reads ahead in
 * chunks so that small batches do not cost a system call each, and jumps over large ones. Stops at
 * the first batch that is torn (extends past the region) or invalid (bad length or magic, offsets
 * going backwards or beyond int32 of the segment base, or, when asked, a CRC mismatch).
 */
public final class BatchHeaderScanner {

    /** Why the scan stopped. */
    public enum Stop {
        /** Not stopped yet. */
        NONE,
        /** The region ended exactly after a whole batch. */
        END,
        /** The last batch runs past the end of the region. */
        TORN,
        /** A batch failed a check; see {@link #stopReason()}. */
        INVALID
    }

    private static final int CRC_CHUNK_BYTES = 64 * 1024;

    private final FileChannel channel;
    private final int endPosition;
    private final long segmentBaseOffset;
    private final boolean verifyCrc;
    private final ByteBuffer readAhead;
    private long readAheadStart = -1;
    private int position;
    private long minNextBaseOffset;
    private Stop stop = Stop.NONE;
    private String stopReason = "";

    /**
     * @param startPosition     a batch boundary in the file
     * @param endPosition       scan stops here; bytes beyond are never read
     * @param segmentBaseOffset every batch's offsets must lie within [base, base + Integer.MAX_VALUE]
     * @param readAheadBytes    chunk size of sequential reads (at least one header)
     */
    public BatchHeaderScanner(
            FileChannel channel,
            int startPosition,
            int endPosition,
            long segmentBaseOffset,
            boolean verifyCrc,
            int readAheadBytes) {
        if (startPosition < 0 || startPosition > endPosition) {
            throw new IllegalArgumentException("Bad scan region [" + startPosition + ", " + endPosition + ")");
        }
        this.channel = channel;
        this.position = startPosition;
        this.endPosition = endPosition;
        this.segmentBaseOffset = segmentBaseOffset;
        this.minNextBaseOffset = segmentBaseOffset;
        this.verifyCrc = verifyCrc;
        this.readAhead = ByteBuffer.allocate(Math.max(readAheadBytes, HEADER_SIZE_BYTES));
    }

    /** The next valid batch header, or null once the scan stopped (then see {@link #stop()}). */
    public BatchHeader next() throws IOException {
        if (stop != Stop.NONE) {
            return null;
        }
        int remaining = endPosition - position;
        if (remaining == 0) {
            return stopWith(Stop.END, "");
        }
        if (remaining < HEADER_SIZE_BYTES) {
            return stopWith(Stop.TORN, remaining + " bytes left, less than a batch header");
        }
        ByteBuffer buf = buffered(position);
        BatchHeader header = BatchHeader.parse(buf, (int) (position - readAheadStart), position);
        String invalid = checkHeader(header);
        if (invalid != null) {
            return stopWith(Stop.INVALID, invalid);
        }
        if (header.sizeBytes() > remaining) {
            return stopWith(Stop.TORN, "batch of " + header.sizeBytes() + " bytes but " + remaining + " bytes left");
        }
        if (verifyCrc) {
            long computed = crcOf(header);
            if (computed != header.crc()) {
                return stopWith(Stop.INVALID, "CRC " + header.crc() + " stored but " + computed + " computed");
            }
        }
        position = header.endPosition();
        minNextBaseOffset = header.nextOffset();
        return header;
    }

    /** Position just past the last batch returned: the end of the valid prefix. */
    public int position() {
        return position;
    }

    public Stop stop() {
        return stop;
    }

    public String stopReason() {
        return stopReason;
    }

    private String checkHeader(BatchHeader header) {
        if (header.sizeBytes() - LOG_OVERHEAD_BYTES < MIN_BATCH_LENGTH) {
            return "batch length " + (header.sizeBytes() - LOG_OVERHEAD_BYTES) + " is shorter than a header";
        }
        if (header.magic() != MAGIC) {
            return "magic " + header.magic();
        }
        if (header.lastOffsetDelta() < 0) {
            return "negative lastOffsetDelta " + header.lastOffsetDelta();
        }
        if (header.baseOffset() < minNextBaseOffset) {
            return "base offset " + header.baseOffset() + " below " + minNextBaseOffset;
        }
        if (header.lastOffset() - segmentBaseOffset > Integer.MAX_VALUE) {
            return "last offset " + header.lastOffset() + " beyond int32 of segment base " + segmentBaseOffset;
        }
        return null;
    }

    /** The read-ahead buffer holding at least a header at {@code at}, refilled from {@code at} if needed. */
    private ByteBuffer buffered(int at) throws IOException {
        long bufferedEnd = readAheadStart + readAhead.limit();
        if (readAheadStart < 0 || at < readAheadStart || at + HEADER_SIZE_BYTES > bufferedEnd) {
            readAhead.clear();
            readAhead.limit(Math.min(readAhead.capacity(), endPosition - at));
            DurableFiles.readFully(channel, readAhead, at);
            readAhead.flip();
            readAheadStart = at;
        }
        return readAhead;
    }

    private long crcOf(BatchHeader header) throws IOException {
        CRC32C crc = new CRC32C();
        ByteBuffer chunk = ByteBuffer.allocate(Math.min(CRC_CHUNK_BYTES, header.sizeBytes()));
        long at = header.position() + (long) ATTRIBUTES_OFFSET;
        long end = header.endPosition();
        while (at < end) {
            chunk.clear().limit((int) Math.min(chunk.capacity(), end - at));
            DurableFiles.readFully(channel, chunk, at);
            chunk.flip();
            at += chunk.remaining();
            crc.update(chunk);
        }
        return crc.getValue();
    }

    private BatchHeader stopWith(Stop why, String reason) {
        stop = why;
        stopReason = reason;
        return null;
    }
}

package io.varve.storage.cleaner;

import static io.varve.storage.batch.RecordBatchV2.HEADER_SIZE_BYTES;
import static io.varve.storage.batch.RecordBatchV2.LOG_OVERHEAD_BYTES;
import static io.varve.storage.batch.RecordBatchV2.MAGIC;
import static io.varve.storage.batch.RecordBatchV2.MAGIC_OFFSET;
import static io.varve.storage.batch.RecordBatchV2.MIN_BATCH_LENGTH;

import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.fs.DurableFiles;
import io.varve.storage.segment.CorruptSegmentException;
import io.varve.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads a rolled segment sequentially in chunks of whole batches (one batch when a batch is larger than
 * a chunk), checking each batch's size, magic and CRC: the cleaner re-encodes what it reads with fresh
 * checksums, so damage must be caught here or it would be laundered into valid-looking batches.
 */
final class SegmentBatchReader {

    private final LogSegment segment;
    private final int endPosition;
    private final ByteBuffer chunk;
    private int position;

    SegmentBatchReader(LogSegment segment, int startPosition, int chunkBytes) {
        if (chunkBytes < HEADER_SIZE_BYTES) {
            throw new IllegalArgumentException("A chunk must hold a batch header: " + chunkBytes);
        }
        this.segment = segment;
        this.position = startPosition;
        this.endPosition = segment.sizeBytes();
        // a small segment needs no full-size chunk
        this.chunk =
                ByteBuffer.allocate(Math.max(HEADER_SIZE_BYTES, Math.min(chunkBytes, endPosition - startPosition)));
    }

    /** The next whole batches (position 0 to limit; valid until the next call), or null at the segment's end. */
    ByteBuffer next() throws IOException {
        int left = endPosition - position;
        if (left == 0) {
            return null;
        }
        if (left < HEADER_SIZE_BYTES) {
            throw corrupt(position, left + " bytes left, less than a batch header");
        }
        ByteBuffer bytes = chunk.clear().limit(Math.min(chunk.capacity(), left));
        DurableFiles.readFully(segment.channel(), bytes, position);
        bytes.flip();
        int whole = 0;
        while (bytes.limit() - whole >= LOG_OVERHEAD_BYTES) {
            int size = RecordBatchV2.sizeBytes(bytes, whole);
            if (size - LOG_OVERHEAD_BYTES < MIN_BATCH_LENGTH || size > endPosition - position - whole) {
                throw corrupt(position + whole, "batch size " + size);
            }
            if (whole + size > bytes.limit()) {
                break;
            }
            whole += size;
        }
        if (whole == 0) { // one batch larger than a chunk
            int size = RecordBatchV2.sizeBytes(bytes, 0);
            bytes = ByteBuffer.allocate(size);
            DurableFiles.readFully(segment.channel(), bytes, position);
            whole = size;
        }
        bytes.position(0).limit(whole);
        for (int at = 0; at < whole; at += RecordBatchV2.sizeBytes(bytes, at)) {
            int size = RecordBatchV2.sizeBytes(bytes, at);
            if (bytes.get(at + MAGIC_OFFSET) != MAGIC) {
                throw corrupt(position + at, "magic " + bytes.get(at + MAGIC_OFFSET));
            }
            if (RecordBatchV2.computeCrc(bytes, at, size) != RecordBatchV2.storedCrc(bytes, at)) {
                throw corrupt(position + at, "CRC mismatch");
            }
        }
        position += whole;
        return bytes;
    }

    private CorruptSegmentException corrupt(int at, String why) {
        return new CorruptSegmentException(segment.logFile() + " is corrupt at position " + at + ": " + why);
    }
}

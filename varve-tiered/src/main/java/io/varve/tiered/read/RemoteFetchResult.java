package io.varve.tiered.read;

import io.varve.tiered.metadata.RemoteSegmentMetadata;
import java.nio.ByteBuffer;

/**
 * Whole record batches read from one remote segment.
 *
 * @param records    the batches (empty when none fitted the byte limit)
 * @param segment    the segment they came from
 * @param nextOffset the offset after the last batch, -1 when there is none
 */
public record RemoteFetchResult(RemoteRecords records, RemoteSegmentMetadata segment, long nextOffset) {

    public int sizeBytes() {
        return records.sizeBytes();
    }

    /** The batches in a heap buffer (a copy when they are served from a file): tests and diagnostics. */
    public ByteBuffer readBytes() {
        return records.readBytes();
    }
}

package io.varve.tiered.read;

import io.varve.tiered.metadata.RemoteSegmentMetadata;
import java.nio.ByteBuffer;

/**
 * Whole record batches read from one remote segment.
 *
 * @param records read-only bytes of the batches (empty when none fitted the byte limit)
 * @param segment the segment they came from
 */
public record RemoteFetchResult(ByteBuffer records, RemoteSegmentMetadata segment) {

    public int sizeBytes() {
        return records.remaining();
    }
}

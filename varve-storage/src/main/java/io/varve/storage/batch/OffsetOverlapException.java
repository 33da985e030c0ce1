package io.varve.storage.batch;

import org.apache.kafka.common.InvalidRecordException;

/**
 * A replicated batch would overlap offsets the log already holds (or a previous batch of the same set): the
 * follower's log end offset and the leader's log disagree, so the follower must truncate (or the leader sent
 * the wrong range). Nothing was written.
 */
public final class OffsetOverlapException extends InvalidRecordException {
    private final long batchBaseOffset;
    private final long expectedAtLeast;

    OffsetOverlapException(long batchBaseOffset, long expectedAtLeast, boolean first) {
        super((first ? "The first replicated batch starts at offset " : "A replicated batch starts at offset ")
                + batchBaseOffset + ", below " + (first ? "the log end offset " : "the end of the batch before it ")
                + expectedAtLeast + "; nothing was appended");
        this.batchBaseOffset = batchBaseOffset;
        this.expectedAtLeast = expectedAtLeast;
    }

    /** The base offset of the offending batch. */
    public long batchBaseOffset() {
        return batchBaseOffset;
    }

    /** The lowest offset it could have started at. */
    public long expectedAtLeast() {
        return expectedAtLeast;
    }
}

package io.varve.tiered.metadata;

import java.util.Objects;

/** An event that changes the remote log metadata; the durable store is the ordered list of these. */
public sealed interface RemoteLogMetadataEvent {

    RemoteSegmentId segmentId();

    /** A new segment upload begins: the full description of the segment, in state COPY_SEGMENT_STARTED. */
    record SegmentAdded(RemoteSegmentMetadata metadata) implements RemoteLogMetadataEvent {
        public SegmentAdded {
            Objects.requireNonNull(metadata, "metadata");
            if (metadata.state() != RemoteSegmentState.COPY_SEGMENT_STARTED) {
                throw new IllegalArgumentException(
                        "a segment is added in COPY_SEGMENT_STARTED, not " + metadata.state());
            }
        }

        @Override
        public RemoteSegmentId segmentId() {
            return metadata.segmentId();
        }
    }

    /** An existing segment moves to {@code newState}. */
    record SegmentStateChanged(RemoteSegmentId segmentId, RemoteSegmentState newState, long eventTimestampMs)
            implements RemoteLogMetadataEvent {
        public SegmentStateChanged {
            Objects.requireNonNull(segmentId, "segmentId");
            Objects.requireNonNull(newState, "newState");
        }
    }
}

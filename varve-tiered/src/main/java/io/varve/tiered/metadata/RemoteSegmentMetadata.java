package io.varve.tiered.metadata;

import java.util.Collections;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What is known about one remote segment: its offsets {@code [startOffset, endOffset]} (both inclusive), the largest
 * record timestamp, the leader epochs whose records it holds (epoch → first offset of that epoch inside the segment),
 * its size and its lifecycle state. Immutable; {@link #withState} returns the next version.
 */
public record RemoteSegmentMetadata(
        RemoteSegmentId segmentId,
        long startOffset,
        long endOffset,
        long maxTimestampMs,
        NavigableMap<Integer, Long> segmentLeaderEpochs,
        int segmentSizeBytes,
        RemoteSegmentState state,
        long eventTimestampMs) {

    public RemoteSegmentMetadata {
        Objects.requireNonNull(segmentId, "segmentId");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(segmentLeaderEpochs, "segmentLeaderEpochs");
        if (startOffset < 0 || endOffset < startOffset) {
            throw new IllegalArgumentException(
                    "bad offset range [" + startOffset + ", " + endOffset + "] for " + segmentId);
        }
        if (segmentSizeBytes < 0) {
            throw new IllegalArgumentException("negative segment size " + segmentSizeBytes + " for " + segmentId);
        }
        if (segmentLeaderEpochs.isEmpty()) {
            throw new IllegalArgumentException("a segment holds records of at least one leader epoch: " + segmentId);
        }
        long previousOffset = -1;
        for (Map.Entry<Integer, Long> e : segmentLeaderEpochs.entrySet()) {
            long offset = e.getValue();
            if (e.getKey() < 0 || offset < startOffset || offset > endOffset || offset <= previousOffset) {
                throw new IllegalArgumentException("leader epochs " + segmentLeaderEpochs + " do not fit ["
                        + startOffset + ", " + endOffset + "] of " + segmentId);
            }
            previousOffset = offset;
        }
        if (segmentLeaderEpochs.firstEntry().getValue() != startOffset) {
            throw new IllegalArgumentException("the first leader epoch must start at the segment's start offset "
                    + startOffset + ": " + segmentLeaderEpochs);
        }
        segmentLeaderEpochs = Collections.unmodifiableNavigableMap(new TreeMap<>(segmentLeaderEpochs));
    }

    /** A new segment about to be uploaded (state {@link RemoteSegmentState#COPY_SEGMENT_STARTED}). */
    public static RemoteSegmentMetadata copyStarted(
            RemoteSegmentId segmentId,
            long startOffset,
            long endOffset,
            long maxTimestampMs,
            NavigableMap<Integer, Long> segmentLeaderEpochs,
            int segmentSizeBytes,
            long eventTimestampMs) {
        return new RemoteSegmentMetadata(
                segmentId,
                startOffset,
                endOffset,
                maxTimestampMs,
                segmentLeaderEpochs,
                segmentSizeBytes,
                RemoteSegmentState.COPY_SEGMENT_STARTED,
                eventTimestampMs);
    }

    public TopicIdPartition topicIdPartition() {
        return segmentId.topicIdPartition();
    }

    public RemoteSegmentMetadata withState(RemoteSegmentState newState, long newEventTimestampMs) {
        return new RemoteSegmentMetadata(
                segmentId,
                startOffset,
                endOffset,
                maxTimestampMs,
                segmentLeaderEpochs,
                segmentSizeBytes,
                newState,
                newEventTimestampMs);
    }

    /**
     * The last offset of {@code leaderEpoch} inside this segment, or -1 when the segment holds no record of it.
     * An epoch runs until the next epoch's first offset, or to the segment's end.
     */
    public long endOffsetOfEpoch(int leaderEpoch) {
        if (!segmentLeaderEpochs.containsKey(leaderEpoch)) {
            return -1;
        }
        Map.Entry<Integer, Long> next = segmentLeaderEpochs.higherEntry(leaderEpoch);
        return next == null ? endOffset : next.getValue() - 1;
    }
}

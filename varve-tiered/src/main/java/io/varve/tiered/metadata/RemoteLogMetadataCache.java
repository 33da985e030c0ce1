package io.varve.tiered.metadata;

import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentAdded;
import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentStateChanged;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The remote segments of every partition and their states, built by applying {@link RemoteLogMetadataEvent}s in
 * order. Pure: no I/O, no clock, no threads. Applying the same events always yields the same state, which is how the
 * durable store recovers it. Not thread-safe: one owner applies events and answers queries (the store synchronises).
 *
 * <p>A segment that reaches {@link RemoteSegmentState#DELETE_SEGMENT_FINISHED} is forgotten: its objects are gone.
 */
public final class RemoteLogMetadataCache {

    private static final Comparator<RemoteSegmentMetadata> BY_START_OFFSET = Comparator.comparingLong(
                    RemoteSegmentMetadata::startOffset)
            .thenComparingLong(RemoteSegmentMetadata::endOffset)
            .thenComparing(m -> m.segmentId().id().toString());

    private static final NavigableMap<Long, List<RemoteSegmentMetadata>> EMPTY =
            Collections.unmodifiableNavigableMap(new TreeMap<>());

    private final Map<RemoteSegmentId, RemoteSegmentMetadata> segments = new HashMap<>();
    /** Per partition: start offset → the segments starting there (usually one; more after re-uploads), sorted. */
    private final Map<TopicIdPartition, NavigableMap<Long, List<RemoteSegmentMetadata>>> byStartOffset =
            new HashMap<>();

    /**
     * Applies one event and returns the segment's new metadata.
     *
     * @throws IllegalRemoteSegmentTransitionException if the lifecycle forbids it; the cache is then unchanged
     */
    public RemoteSegmentMetadata apply(RemoteLogMetadataEvent event) {
        if (event instanceof SegmentAdded added) {
            return add(added.metadata());
        }
        SegmentStateChanged change = (SegmentStateChanged) event;
        return changeState(change.segmentId(), change.newState(), change.eventTimestampMs());
    }

    /** Checks {@code event} against the current state without applying it. */
    public void validate(RemoteLogMetadataEvent event) {
        if (event instanceof SegmentAdded added) {
            RemoteSegmentMetadata existing = segments.get(added.segmentId());
            if (existing != null && !existing.equals(added.metadata())) {
                throw new IllegalRemoteSegmentTransitionException(
                        "segment " + added.segmentId() + " was already added, in state " + existing.state());
            }
            return;
        }
        SegmentStateChanged change = (SegmentStateChanged) event;
        RemoteSegmentMetadata current = segments.get(change.segmentId());
        if (current == null) {
            throw new IllegalRemoteSegmentTransitionException(
                    "unknown remote segment " + change.segmentId() + " cannot move to " + change.newState());
        }
        if (!RemoteSegmentState.isLegalTransition(current.state(), change.newState())) {
            throw new IllegalRemoteSegmentTransitionException("remote segment " + change.segmentId()
                    + " cannot move from " + current.state() + " to " + change.newState());
        }
    }

    private RemoteSegmentMetadata add(RemoteSegmentMetadata metadata) {
        validate(new SegmentAdded(metadata));
        if (segments.put(metadata.segmentId(), metadata) == null) {
            List<RemoteSegmentMetadata> sameStart = byStartOffset
                    .computeIfAbsent(metadata.topicIdPartition(), p -> new TreeMap<>())
                    .computeIfAbsent(metadata.startOffset(), o -> new ArrayList<>(1));
            sameStart.add(metadata);
            sameStart.sort(BY_START_OFFSET);
        }
        return metadata;
    }

    private RemoteSegmentMetadata changeState(
            RemoteSegmentId segmentId, RemoteSegmentState newState, long eventTimestampMs) {
        validate(new SegmentStateChanged(segmentId, newState, eventTimestampMs));
        RemoteSegmentMetadata updated = segments.get(segmentId).withState(newState, eventTimestampMs);
        NavigableMap<Long, List<RemoteSegmentMetadata>> partition = byStartOffset.get(segmentId.topicIdPartition());
        List<RemoteSegmentMetadata> sameStart = partition.get(updated.startOffset());
        int index = indexOf(sameStart, segmentId);
        if (newState == RemoteSegmentState.DELETE_SEGMENT_FINISHED) {
            segments.remove(segmentId);
            sameStart.remove(index);
            if (sameStart.isEmpty()) {
                partition.remove(updated.startOffset());
                if (partition.isEmpty()) {
                    byStartOffset.remove(segmentId.topicIdPartition());
                }
            }
        } else {
            segments.put(segmentId, updated);
            sameStart.set(index, updated); // same offsets and id: the order is unchanged
        }
        return updated;
    }

    private static int indexOf(List<RemoteSegmentMetadata> sameStart, RemoteSegmentId segmentId) {
        for (int i = 0; i < sameStart.size(); i++) {
            if (sameStart.get(i).segmentId().equals(segmentId)) {
                return i;
            }
        }
        throw new IllegalStateException("index lost remote segment " + segmentId); // invariant: both maps agree
    }

    /** The segment's current metadata, empty once it was deleted (or never added). */
    public Optional<RemoteSegmentMetadata> segment(RemoteSegmentId segmentId) {
        return Optional.ofNullable(segments.get(segmentId));
    }

    /** Every known segment of the partition, in any state but deleted, ordered by start offset. */
    public List<RemoteSegmentMetadata> segments(TopicIdPartition partition) {
        List<RemoteSegmentMetadata> result = new ArrayList<>();
        byStartOffset.getOrDefault(partition, EMPTY).values().forEach(result::addAll);
        return result;
    }

    /** The readable segments (COPY_SEGMENT_FINISHED) of the partition, ordered by start offset. */
    public List<RemoteSegmentMetadata> copiedSegments(TopicIdPartition partition) {
        List<RemoteSegmentMetadata> result = segments(partition);
        result.removeIf(m -> m.state() != RemoteSegmentState.COPY_SEGMENT_FINISHED);
        return result;
    }

    /** The partitions that have at least one known segment. */
    public Set<TopicIdPartition> partitions() {
        return Set.copyOf(byStartOffset.keySet());
    }

    /**
     * The readable segment holding {@code offset} among the records written in {@code leaderEpoch}: the segment's
     * part for that epoch, {@code [first offset of the epoch, next epoch's first offset)}, must contain the offset.
     * This is how a fetch with a leader epoch avoids reading a divergent copy left by an old leader.
     */
    public Optional<RemoteSegmentMetadata> segmentForOffset(TopicIdPartition partition, int leaderEpoch, long offset) {
        return latestCopiedMatch(partition, offset, m -> {
            Long epochStart = m.segmentLeaderEpochs().get(leaderEpoch);
            return epochStart != null && epochStart <= offset && offset <= m.endOffsetOfEpoch(leaderEpoch);
        });
    }

    /** The readable segment holding {@code offset}, whatever the epoch (on overlap, the one starting last wins). */
    public Optional<RemoteSegmentMetadata> segmentForOffset(TopicIdPartition partition, long offset) {
        return latestCopiedMatch(partition, offset, m -> offset <= m.endOffset());
    }

    /**
     * The readable segment with the highest start offset at or below {@code offset} that satisfies {@code holds}.
     * Walks down from the floor entry, so a lookup in non-overlapping segments touches one or two entries.
     */
    private Optional<RemoteSegmentMetadata> latestCopiedMatch(
            TopicIdPartition partition, long offset, Predicate<RemoteSegmentMetadata> holds) {
        for (List<RemoteSegmentMetadata> sameStart : byStartOffset
                .getOrDefault(partition, EMPTY)
                .headMap(offset, true)
                .descendingMap()
                .values()) {
            for (int i = sameStart.size() - 1; i >= 0; i--) {
                RemoteSegmentMetadata m = sameStart.get(i);
                if (m.state() == RemoteSegmentState.COPY_SEGMENT_FINISHED && holds.test(m)) {
                    return Optional.of(m);
                }
            }
        }
        return Optional.empty();
    }

    /** The highest offset held by a readable remote segment of the partition; empty when nothing is copied yet. */
    public OptionalLong highestCopiedOffset(TopicIdPartition partition) {
        return copiedSegments(partition).stream()
                .mapToLong(RemoteSegmentMetadata::endOffset)
                .max();
    }

    /** The highest offset of {@code leaderEpoch} held by a readable remote segment; empty if none holds that epoch. */
    public OptionalLong highestCopiedOffsetForEpoch(TopicIdPartition partition, int leaderEpoch) {
        return copiedSegments(partition).stream()
                .filter(m -> m.segmentLeaderEpochs().containsKey(leaderEpoch))
                .mapToLong(m -> m.endOffsetOfEpoch(leaderEpoch))
                .max();
    }

    /** The lowest offset held by a readable remote segment of the partition (the remote log start offset). */
    public OptionalLong lowestCopiedOffset(TopicIdPartition partition) {
        return copiedSegments(partition).stream()
                .mapToLong(RemoteSegmentMetadata::startOffset)
                .min();
    }

    /**
     * Segments left half-done by a crash, across all partitions: uploads that never finished (their objects may be
     * partial: delete them) and deletions that never finished (delete again, then mark finished). Ordered by
     * partition, then start offset.
     */
    public List<RemoteSegmentMetadata> segmentsToCleanUp() {
        List<RemoteSegmentMetadata> result = new ArrayList<>();
        for (RemoteSegmentMetadata m : segments.values()) {
            if (m.state() == RemoteSegmentState.COPY_SEGMENT_STARTED
                    || m.state() == RemoteSegmentState.DELETE_SEGMENT_STARTED) {
                result.add(m);
            }
        }
        result.sort(Comparator.comparing((RemoteSegmentMetadata m) ->
                        m.topicIdPartition().topicId().toString())
                .thenComparingInt(m -> m.topicIdPartition().partition())
                .thenComparing(BY_START_OFFSET));
        return result;
    }

    /** All known segments, for snapshots of the durable store; any order. */
    List<RemoteSegmentMetadata> allSegments() {
        return new ArrayList<>(segments.values());
    }
}

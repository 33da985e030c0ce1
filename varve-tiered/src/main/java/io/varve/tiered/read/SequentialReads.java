package io.varve.tiered.read;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.varve.tiered.metadata.RemoteSegmentId;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;

/**
 * Tells a sequential reader of a partition from one seeking around, so that read-ahead goes deep only where it pays:
 * a consumer catching up gets the whole read-ahead window, a consumer that seeks into the middle of a segment (or a
 * time lookup) gets one chunk ahead, and does not fill the disk and the caches with 16 MiB it will never read. A read
 * is sequential when it starts where the partition's previous read ended in the same segment, or at a segment's
 * first byte (a consumer from the start, or the next segment of a sequential one). Remembers the last read of at most
 * {@code maxPartitions} partitions; several consumers of one partition at different places look like seeks.
 */
final class SequentialReads {

    private record LastRead(RemoteSegmentId segmentId, long endPosition) {}

    private final Cache<TopicIdPartition, LastRead> last;

    SequentialReads(long maxPartitions) {
        this.last = Caffeine.newBuilder()
                .maximumSize(maxPartitions)
                .executor(Runnable::run)
                .build();
    }

    /** Records a read of {@code segment} ending at {@code endPosition}; true when it continued the previous one. */
    boolean read(RemoteSegmentMetadata segment, long startPosition, long endPosition) {
        TopicIdPartition partition = segment.topicIdPartition();
        LastRead previous = last.getIfPresent(partition);
        last.put(partition, new LastRead(segment.segmentId(), endPosition));
        return startPosition == 0
                || (previous != null
                        && previous.segmentId().equals(segment.segmentId())
                        && previous.endPosition() == startPosition);
    }
}

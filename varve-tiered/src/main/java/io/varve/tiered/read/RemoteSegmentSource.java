package io.varve.tiered.read;

import io.varve.tiered.metadata.RemoteLogMetadataCache;
import io.varve.tiered.metadata.RemoteLogMetadataStore;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The readable (COPY_SEGMENT_FINISHED) remote segments of a partition, as the remote log metadata knows them. The
 * reader asks on every read, so a segment deleted by remote retention is not read again.
 */
public interface RemoteSegmentSource {

    /** The readable segments of the partition ordered by start offset. */
    List<RemoteSegmentMetadata> copiedSegments(TopicIdPartition partition);

    /** {@link RemoteLogMetadataCache#segmentForOffset(TopicIdPartition, int, long)}. */
    Optional<RemoteSegmentMetadata> segmentForOffset(TopicIdPartition partition, int leaderEpoch, long offset);

    /** {@link RemoteLogMetadataCache#segmentForOffset(TopicIdPartition, long)}. */
    Optional<RemoteSegmentMetadata> segmentForOffset(TopicIdPartition partition, long offset);

    /** A source answering from a durable metadata store. */
    static RemoteSegmentSource of(RemoteLogMetadataStore store) {
        return of(store::read);
    }

    /** A source answering from whatever runs queries against a metadata cache under its owner's lock. */
    static RemoteSegmentSource of(QueryRunner runner) {
        return new RemoteSegmentSource() {
            @Override
            public List<RemoteSegmentMetadata> copiedSegments(TopicIdPartition partition) {
                return runner.read(cache -> cache.copiedSegments(partition));
            }

            @Override
            public Optional<RemoteSegmentMetadata> segmentForOffset(
                    TopicIdPartition partition, int leaderEpoch, long offset) {
                return runner.read(cache -> cache.segmentForOffset(partition, leaderEpoch, offset));
            }

            @Override
            public Optional<RemoteSegmentMetadata> segmentForOffset(TopicIdPartition partition, long offset) {
                return runner.read(cache -> cache.segmentForOffset(partition, offset));
            }
        };
    }

    /** Runs a query against the metadata cache (e.g. {@link RemoteLogMetadataStore#read}). */
    @FunctionalInterface
    interface QueryRunner {
        <T> T read(Function<RemoteLogMetadataCache, T> query);
    }
}

package io.varve.tiered.spi;

import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;
import java.io.Closeable;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * An object store for rolled log segments. Every method is safe to call from several threads at once, and every
 * mutation is idempotent: a copy may be repeated (it overwrites the same keys with the same bytes) and deleting what
 * is already gone succeeds, because the remote log manager retries after crashes. Objects of a segment are visible
 * to readers only once its metadata says COPY_SEGMENT_FINISHED, so a partial copy is never read; but each single
 * object is either absent or complete (no backend exposes a half-written object under its final key).
 */
public interface RemoteStorage extends Closeable {

    /** Uploads the segment's log and index files under keys derived from {@code metadata} ({@link ObjectKeys}). */
    void copySegment(RemoteSegmentMetadata metadata, SegmentFiles files) throws RemoteStorageException;

    /**
     * Streams the log segment's bytes {@code [startPosition, endPosition]} (both inclusive; an end past the object's
     * end reads to the end). The caller closes the stream.
     *
     * @throws RemoteResourceNotFoundException if the segment is not there
     * @throws RemoteStorageException if {@code startPosition} is negative, past the end, or after {@code endPosition}
     */
    InputStream fetchLogSegment(RemoteSegmentMetadata metadata, long startPosition, long endPosition)
            throws RemoteStorageException;

    /** Streams the log segment from {@code startPosition} to its end. */
    default InputStream fetchLogSegment(RemoteSegmentMetadata metadata, long startPosition)
            throws RemoteStorageException {
        return fetchLogSegment(metadata, startPosition, Long.MAX_VALUE - 1);
    }

    /**
     * The segment's log object as a file on this machine, when the backend keeps objects as files the broker can read
     * directly: the read path then sends its bytes to the socket with sendfile, as local reads do, instead of copying
     * them through the heap. Empty (the default) for stores reached over the network. The path names the complete
     * object (never a temporary file); it may be deleted at any time by {@link #deleteSegment}.
     */
    default Optional<Path> logSegmentFile(RemoteSegmentMetadata metadata) {
        return Optional.empty();
    }

    /**
     * Streams one whole index of the segment.
     *
     * @throws RemoteResourceNotFoundException if it is not there (an absent transaction index included)
     */
    InputStream fetchIndex(RemoteSegmentMetadata metadata, IndexType indexType) throws RemoteStorageException;

    /** Deletes every object of the segment; succeeds if some or all are already gone. */
    void deleteSegment(RemoteSegmentMetadata metadata) throws RemoteStorageException;

    /**
     * Writes a small metadata object of the partition (the replicated remote log metadata, see
     * {@code RemoteMetadataJournal}) under {@link ObjectKeys#metadataKey}; atomic: readers see all of it or nothing.
     * {@code name} has no slash.
     */
    default void putMetadata(TopicIdPartition partition, String name, byte[] content) throws RemoteStorageException {
        throw new RemoteStorageException(getClass().getName() + " keeps no remote log metadata objects", false);
    }

    /** The metadata object {@code name} of the partition, or empty when there is none. */
    default Optional<byte[]> getMetadata(TopicIdPartition partition, String name) throws RemoteStorageException {
        throw new RemoteStorageException(getClass().getName() + " keeps no remote log metadata objects", false);
    }

    /** Names of the partition's metadata objects in lexicographic order (empty when there are none). */
    default List<String> listMetadata(TopicIdPartition partition) throws RemoteStorageException {
        throw new RemoteStorageException(getClass().getName() + " keeps no remote log metadata objects", false);
    }

    /** Deletes one metadata object; succeeds when it is already gone. */
    default void deleteMetadata(TopicIdPartition partition, String name) throws RemoteStorageException {
        throw new RemoteStorageException(getClass().getName() + " keeps no remote log metadata objects", false);
    }

    /** Releases clients and connections; idempotent. */
    @Override
    void close();
}

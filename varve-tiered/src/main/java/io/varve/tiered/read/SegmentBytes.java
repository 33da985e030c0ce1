package io.varve.tiered.read;

import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.spi.RemoteStorageException;
import java.nio.ByteBuffer;

/**
 * Where {@link RemoteLogReader} gets the bytes of remote segments: {@link ChunkCache} (chunks in memory, for stores
 * reached over the network) or {@link FileSegmentBytes} (the objects' own files, sent with sendfile). Thread-safe.
 */
interface SegmentBytes {

    /** Bytes {@code [position, position + length)} of the segment: batch headers, single batches of time lookups. */
    ByteBuffer read(RemoteSegmentMetadata segment, long position, int length) throws RemoteStorageException;

    /**
     * The range a fetch will probably answer with is about to be read: start what makes it fast (chunks fetched in
     * parallel, or the file range read into the page cache). Files: returns once the range is in the page cache, so
     * that sendfile on a network thread never waits for the disk.
     */
    void prepare(RemoteSegmentMetadata segment, long position, int length) throws RemoteStorageException;

    /** The answer to a fetch: bytes {@code [position, position + length)}, all of them prepared. */
    RemoteRecords records(RemoteSegmentMetadata segment, long position, int length) throws RemoteStorageException;

    /** Starts loading chunk {@code chunkIndex} in the background, unless loaded, loading or outside the segment. */
    void prefetch(RemoteSegmentMetadata segment, int chunkIndex);

    /**
     * The reader is about to download the segment's offset index and guesses that the fetch lies in chunk {@code
     * chunkIndex}: start it now if fetching it costs a round trip of its own (a store over the network).
     */
    default void prefetchBeforeIndex(RemoteSegmentMetadata segment, int chunkIndex) {
        prefetch(segment, chunkIndex);
    }

    /** The unit of loading and read-ahead. */
    int chunkBytes();

    /** Chunks asked for by readers since start (read-ahead excluded). */
    long lookups();

    /** Of {@link #lookups()}, those the reader had to load itself (neither loaded nor being loaded ahead). */
    long misses();
}

package io.varve.tiered.read;

import com.github.benmanes.caffeine.cache.Caffeine;
import io.varve.tiered.metadata.RemoteSegmentId;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.spi.RemoteStorage;
import io.varve.tiered.spi.RemoteStorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Bytes of remote log segments in fixed-size chunks ({@code chunkBytes}; a segment's last chunk is shorter), fetched
 * with one ranged read each and kept in memory up to {@code maxCacheBytes} (least recently and frequently used
 * chunks go first). Concurrent readers of the same chunk share one fetch. {@link #prefetch} starts fetching a chunk
 * in the background, which is how sequential consumers find the next chunk already there.
 */
final class ChunkCache implements SegmentBytes {

    /** One chunk of one uploaded segment. */
    record ChunkKey(RemoteSegmentId segmentId, int chunkIndex) {}

    private final RemoteStorage storage;
    private final int chunkBytes;
    private final Executor readAheadExecutor;
    private final RemoteLoadCache<ChunkKey, ByteBuffer> cache;

    private final java.util.concurrent.atomic.LongAdder lookups = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder misses = new java.util.concurrent.atomic.LongAdder();

    ChunkCache(RemoteStorage storage, int chunkBytes, long maxCacheBytes, Executor readAheadExecutor) {
        if (chunkBytes <= 0 || maxCacheBytes < chunkBytes) {
            throw new IllegalArgumentException(
                    "chunk cache of " + maxCacheBytes + " bytes cannot hold a chunk of " + chunkBytes + " bytes");
        }
        this.storage = Objects.requireNonNull(storage, "storage");
        this.chunkBytes = chunkBytes;
        this.readAheadExecutor = Objects.requireNonNull(readAheadExecutor, "readAheadExecutor");
        this.cache = new RemoteLoadCache<>(Caffeine.newBuilder()
                .maximumWeight(maxCacheBytes)
                .weigher((ChunkKey key, ByteBuffer chunk) -> chunk.capacity())
                .executor(Runnable::run) // eviction is cheap: run it inline
                .build());
    }

    @Override
    public int chunkBytes() {
        return chunkBytes;
    }

    /** The chunk holding byte {@code position} of the segment. */
    int chunkIndexOf(long position) {
        return Math.toIntExact(position / chunkBytes);
    }

    /** How many chunks the segment has. */
    int chunkCount(RemoteSegmentMetadata segment) {
        return (int) ((segment.segmentSizeBytes() + (long) chunkBytes - 1) / chunkBytes);
    }

    /** Chunk {@code chunkIndex} of the segment (read-only, position 0), fetched on this thread unless cached or loading. */
    ByteBuffer chunk(RemoteSegmentMetadata segment, int chunkIndex) throws RemoteStorageException {
        checkIndex(segment, chunkIndex);
        lookups.increment();
        return cache.getOrLoad(new ChunkKey(segment.segmentId(), chunkIndex), () -> {
                    misses.increment(); // the loader runs only when neither cached nor loading
                    return fetch(segment, chunkIndex);
                })
                .duplicate();
    }

    @Override
    public long lookups() {
        return lookups.sum();
    }

    @Override
    public long misses() {
        return misses.sum();
    }

    @Override
    public void prefetch(RemoteSegmentMetadata segment, int chunkIndex) {
        if (chunkIndex < 0 || chunkIndex >= chunkCount(segment)) {
            return;
        }
        cache.prefetch(
                new ChunkKey(segment.segmentId(), chunkIndex), readAheadExecutor, () -> fetch(segment, chunkIndex));
    }

    /** Whether the chunk is cached or loading (tests and read-ahead decisions). */
    boolean contains(RemoteSegmentId segmentId, int chunkIndex) {
        return cache.contains(new ChunkKey(segmentId, chunkIndex));
    }

    /** Bytes held by completed chunks (never above the bound once eviction has run). */
    long cachedBytes() {
        cache.values().cleanUp();
        return cache.values().policy().eviction().orElseThrow().weightedSize().orElse(0);
    }

    /**
     * {@code length} bytes of the segment from {@code position}, crossing chunks as needed. A range inside one chunk
     * is a view of the cached chunk (no copy).
     */
    @Override
    public ByteBuffer read(RemoteSegmentMetadata segment, long position, int length) throws RemoteStorageException {
        if (position < 0 || length < 0 || position + length > segment.segmentSizeBytes()) {
            throw new IllegalArgumentException("range [" + position + ", " + (position + length) + ") is outside "
                    + segment.segmentSizeBytes() + " bytes of " + segment.segmentId());
        }
        int first = chunkIndexOf(position);
        int offsetInFirst = (int) (position - (long) first * chunkBytes);
        if (offsetInFirst + length <= chunkBytes) {
            ByteBuffer chunk = chunk(segment, first);
            return chunk.position(offsetInFirst).limit(offsetInFirst + length).slice();
        }
        ByteBuffer out = ByteBuffer.allocate(length);
        long at = position;
        while (out.hasRemaining()) {
            int index = chunkIndexOf(at);
            ByteBuffer chunk = chunk(segment, index);
            int from = (int) (at - (long) index * chunkBytes);
            int n = Math.min(out.remaining(), chunk.capacity() - from);
            out.put(chunk.position(from).limit(from + n));
            at += n;
        }
        return out.flip();
    }

    /** Fetches the window's chunks in parallel on the read-ahead threads; the reader waits for the one it needs. */
    @Override
    public void prepare(RemoteSegmentMetadata segment, long position, int length) {
        if (length <= 0) {
            return;
        }
        long end = Math.min(segment.segmentSizeBytes(), position + length);
        // the first chunk is the reader's own demand read: only the ones after it go to the read-ahead threads
        for (int c = chunkIndexOf(position) + 1; c < chunkCount(segment) && (long) c * chunkBytes < end; c++) {
            prefetch(segment, c);
        }
    }

    @Override
    public RemoteRecords records(RemoteSegmentMetadata segment, long position, int length)
            throws RemoteStorageException {
        return length == 0
                ? RemoteRecords.EMPTY
                : new RemoteRecords.InMemory(read(segment, position, length).asReadOnlyBuffer());
    }

    private void checkIndex(RemoteSegmentMetadata segment, int chunkIndex) {
        if (chunkIndex < 0 || chunkIndex >= chunkCount(segment)) {
            throw new IllegalArgumentException("chunk " + chunkIndex + " is outside the " + chunkCount(segment)
                    + " chunks of " + segment.segmentId());
        }
    }

    private ByteBuffer fetch(RemoteSegmentMetadata segment, int chunkIndex) throws RemoteStorageException {
        long start = (long) chunkIndex * chunkBytes;
        int length = (int) Math.min(chunkBytes, segment.segmentSizeBytes() - start);
        try (InputStream in = storage.fetchLogSegment(segment, start, start + length - 1)) {
            // straight into the chunk's array: readNBytes(int) would gather 8 KiB pieces and copy them again
            byte[] bytes = new byte[length];
            int read = in.readNBytes(bytes, 0, length);
            if (read != length) {
                throw new RemoteStorageException(
                        "remote segment " + segment.segmentId() + " ended after " + (start + read)
                                + " bytes; its metadata says " + segment.segmentSizeBytes(),
                        false);
            }
            return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
        } catch (IOException e) {
            throw new RemoteStorageException(
                    "reading chunk " + chunkIndex + " of " + segment.segmentId() + " failed: " + e, e, true);
        }
    }
}

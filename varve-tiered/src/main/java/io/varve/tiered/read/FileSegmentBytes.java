package io.varve.tiered.read;

import com.github.benmanes.caffeine.cache.Caffeine;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.read.ChunkCache.ChunkKey;
import io.varve.tiered.spi.RemoteStorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;

/**
 * Zero-copy reads of remote segments whose objects are files on this machine (the filesystem backend): a fetch is
 * answered with a range of the object's file, which the broker sends with sendfile as it sends local segments, so
 * remote bytes never pass through the heap.
 *
 * <p>Sendfile runs on a network thread, which must never wait for the disk (it also serves producers). So the bytes
 * are read once on a reader or read-ahead thread before they are handed out: the fetch's own range by the reader
 * ({@link #prepare}), whole chunks ahead of a sequential consumer by the read-ahead threads. That read goes through one
 * small direct buffer per thread and is dropped: it only brings the pages into the page cache. A chunk read ahead is
 * remembered (up to {@code maxWarmBytes}) so the reader skips it; the page cache, not this class, holds the bytes.
 *
 * <p>Segments the backend keeps no file for go to {@code fallback}, the in-memory chunk cache.
 */
final class FileSegmentBytes implements SegmentBytes {
    /** Per-thread buffer the warming reads go through. */
    private static final int SCRATCH_BYTES = 256 * 1024;

    private static final ThreadLocal<ByteBuffer> SCRATCH =
            ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(SCRATCH_BYTES));

    private final RemoteFileChannels channels;
    private final ChunkCache fallback;
    private final int chunkBytes;
    private final Executor readAheadExecutor;
    /** Chunks read through once, so their pages are in the page cache (as far as the kernel keeps them). */
    private final RemoteLoadCache<ChunkKey, Boolean> warm;

    private final LongAdder lookups = new LongAdder();
    private final LongAdder misses = new LongAdder();

    FileSegmentBytes(RemoteFileChannels channels, ChunkCache fallback, long maxWarmBytes, Executor readAheadExecutor) {
        this.channels = Objects.requireNonNull(channels, "channels");
        this.fallback = Objects.requireNonNull(fallback, "fallback");
        this.chunkBytes = fallback.chunkBytes();
        this.readAheadExecutor = Objects.requireNonNull(readAheadExecutor, "readAheadExecutor");
        int chunks = (int) Math.max(1, Math.min(Integer.MAX_VALUE, maxWarmBytes / chunkBytes));
        this.warm = new RemoteLoadCache<>(Caffeine.newBuilder()
                .maximumSize(chunks)
                .executor(Runnable::run)
                .build());
    }

    @Override
    public int chunkBytes() {
        return chunkBytes;
    }

    @Override
    public ByteBuffer read(RemoteSegmentMetadata segment, long position, int length) throws RemoteStorageException {
        checkRange(segment, position, length);
        Optional<FileChannel> channel = channels.channel(segment);
        if (channel.isEmpty()) {
            return fallback.read(segment, position, length);
        }
        ByteBuffer out = ByteBuffer.allocate(length);
        try {
            while (out.hasRemaining()) {
                if (channel.get().read(out, position + out.position()) < 0) {
                    throw shorterThanMetadata(segment, position + out.position());
                }
            }
        } catch (IOException e) {
            throw readFailed(segment, position, e);
        }
        return out.flip().asReadOnlyBuffer();
    }

    /**
     * Reads the range into the page cache on this thread, skipping chunks already read ahead. Not waiting for a
     * read-ahead of the same chunk still in flight is on purpose: it covers the whole chunk, the fetch only its
     * range, and the kernel shares the page reads of both.
     */
    @Override
    public void prepare(RemoteSegmentMetadata segment, long position, int length) throws RemoteStorageException {
        if (length <= 0) {
            return;
        }
        long end = Math.min(segment.segmentSizeBytes(), position + length);
        Optional<FileChannel> channel = channels.channel(segment);
        if (channel.isEmpty()) {
            fallback.prepare(segment, position, length);
            return;
        }
        for (int c = (int) (position / chunkBytes); (long) c * chunkBytes < end; c++) {
            lookups.increment();
            if (warm.cached(new ChunkKey(segment.segmentId(), c))) {
                continue;
            }
            misses.increment();
            long from = Math.max(position, (long) c * chunkBytes);
            long to = Math.min(end, (long) (c + 1) * chunkBytes);
            readThrough(segment, channel.get(), from, to);
        }
    }

    @Override
    public RemoteRecords records(RemoteSegmentMetadata segment, long position, int length)
            throws RemoteStorageException {
        if (length == 0) {
            return RemoteRecords.EMPTY;
        }
        checkRange(segment, position, length);
        Optional<FileChannel> channel = channels.channel(segment);
        if (channel.isEmpty()) {
            return fallback.records(segment, position, length);
        }
        return new RemoteRecords.InFile(channel.get(), position, length);
    }

    @Override
    public void prefetch(RemoteSegmentMetadata segment, int chunkIndex) {
        long start = (long) chunkIndex * chunkBytes;
        if (chunkIndex < 0 || start >= segment.segmentSizeBytes()) {
            return;
        }
        long end = Math.min(segment.segmentSizeBytes(), start + chunkBytes);
        warm.prefetch(new ChunkKey(segment.segmentId(), chunkIndex), readAheadExecutor, () -> {
            Optional<FileChannel> channel = channels.channel(segment);
            if (channel.isEmpty()) {
                fallback.prefetch(segment, chunkIndex);
                return Boolean.FALSE;
            }
            readThrough(segment, channel.get(), start, end);
            return Boolean.TRUE;
        });
    }

    /**
     * Nothing for a local file: the fetch reads only its own range into the page cache, which is smaller than a chunk
     * and would only wait behind a guessed one on the same disk.
     */
    @Override
    public void prefetchBeforeIndex(RemoteSegmentMetadata segment, int chunkIndex) {
        try {
            if (channels.channel(segment).isEmpty()) {
                fallback.prefetchBeforeIndex(segment, chunkIndex);
            }
        } catch (RemoteStorageException e) {
            // a guess only: the demand read that follows reports the failure
        }
    }

    @Override
    public long lookups() {
        return lookups.sum() + fallback.lookups();
    }

    @Override
    public long misses() {
        return misses.sum() + fallback.misses();
    }

    /** Whether the chunk was read ahead (tests). */
    boolean warmOrWarming(RemoteSegmentMetadata segment, int chunkIndex) {
        return warm.contains(new ChunkKey(segment.segmentId(), chunkIndex));
    }

    /** Reads {@code [from, to)} of the file and drops the bytes; fails when the file ends first. */
    private static void readThrough(RemoteSegmentMetadata segment, FileChannel channel, long from, long to)
            throws RemoteStorageException {
        ByteBuffer scratch = SCRATCH.get();
        long at = from;
        try {
            while (at < to) {
                scratch.clear().limit((int) Math.min(scratch.capacity(), to - at));
                int n = channel.read(scratch, at);
                if (n < 0) {
                    throw shorterThanMetadata(segment, at);
                }
                at += n;
            }
        } catch (IOException e) {
            throw readFailed(segment, at, e);
        }
    }

    private static void checkRange(RemoteSegmentMetadata segment, long position, int length) {
        if (position < 0 || length < 0 || position + length > segment.segmentSizeBytes()) {
            throw new IllegalArgumentException("range [" + position + ", " + (position + length) + ") is outside "
                    + segment.segmentSizeBytes() + " bytes of " + segment.segmentId());
        }
    }

    private static RemoteStorageException shorterThanMetadata(RemoteSegmentMetadata segment, long at) {
        return new RemoteStorageException(
                "remote segment " + segment.segmentId() + " ended after " + at + " bytes; its metadata says "
                        + segment.segmentSizeBytes(),
                false);
    }

    private static RemoteStorageException readFailed(RemoteSegmentMetadata segment, long at, IOException e) {
        return new RemoteStorageException(
                "reading remote segment " + segment.segmentId() + " at byte " + at + " failed: " + e, e, true);
    }
}

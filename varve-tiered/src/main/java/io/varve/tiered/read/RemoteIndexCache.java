package io.varve.tiered.read;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.varve.storage.segment.OffsetIndex;
import io.varve.storage.segment.TimeIndex;
import io.varve.storage.segment.TransactionIndex;
import io.varve.tiered.metadata.RemoteSegmentId;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.spi.IndexType;
import io.varve.tiered.spi.RemoteResourceNotFoundException;
import io.varve.tiered.spi.RemoteStorage;
import io.varve.tiered.spi.RemoteStorageException;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Offset and time indexes of remote segments, downloaded once into files under a local directory and opened with the
 * storage engine's own {@link OffsetIndex} / {@link TimeIndex}, so remote lookups answer exactly as local ones. The
 * files are bounded in total by {@code maxCacheBytes}; an evicted index is closed and deleted once no lookup uses it.
 * The directory is emptied on start (its files are only a cache).
 */
final class RemoteIndexCache implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(RemoteIndexCache.class);
    /** Attempts to use an index that eviction keeps closing under us before giving up (bounded retry). */
    private static final int MAX_ACQUIRE_ATTEMPTS = 3;

    /** A lookup run against an open index. */
    @FunctionalInterface
    interface Lookup<I, T> {
        T apply(I index) throws IOException;
    }

    private record IndexKey(RemoteSegmentId segmentId, IndexType type) {}

    /** An open index file; closed and deleted when evicted and no lookup holds it. */
    private static final class CachedIndex {
        final Closeable index;
        final Path file;
        final long sizeBytes;
        private int users;
        private boolean evicted;
        private boolean destroyed;

        CachedIndex(Closeable index, Path file, long sizeBytes) {
            this.index = index;
            this.file = file;
            this.sizeBytes = sizeBytes;
        }

        synchronized boolean acquire() {
            if (evicted) {
                return false;
            }
            users++;
            return true;
        }

        synchronized void release() {
            users--;
            if (users == 0 && evicted) {
                destroy();
            }
        }

        synchronized void evict() {
            evicted = true;
            if (users == 0) {
                destroy();
            }
        }

        private void destroy() {
            if (destroyed) {
                return;
            }
            destroyed = true;
            try {
                index.close();
                Files.deleteIfExists(file);
            } catch (IOException e) {
                log.warn("Could not remove cached remote index {}: {}", file, e.toString());
            }
        }
    }

    private final RemoteStorage storage;
    private final Path dir;
    private final RemoteLoadCache<IndexKey, CachedIndex> cache;
    private final AtomicLong downloads = new AtomicLong();

    RemoteIndexCache(RemoteStorage storage, Path dir, long maxCacheBytes) throws IOException {
        if (maxCacheBytes <= 0) {
            throw new IllegalArgumentException("remote index cache size must be positive: " + maxCacheBytes);
        }
        this.storage = Objects.requireNonNull(storage, "storage");
        this.dir = dir;
        Files.createDirectories(dir);
        try (DirectoryStream<Path> stale = Files.newDirectoryStream(dir)) {
            for (Path file : stale) {
                Files.deleteIfExists(file);
            }
        }
        this.cache = new RemoteLoadCache<>(Caffeine.newBuilder()
                .maximumWeight(maxCacheBytes)
                .weigher((IndexKey key, CachedIndex value) ->
                        (int) Math.min(Integer.MAX_VALUE, Math.max(1, value.sizeBytes)))
                .removalListener((IndexKey key, CachedIndex value, RemovalCause cause) -> {
                    if (value != null) {
                        value.evict();
                    }
                })
                .executor(Runnable::run)
                .build());
    }

    /** Runs {@code lookup} on the segment's offset index. */
    <T> T withOffsetIndex(RemoteSegmentMetadata segment, Lookup<OffsetIndex, T> lookup) throws RemoteStorageException {
        return with(segment, IndexType.OFFSET, lookup);
    }

    /** Runs {@code lookup} on the segment's time index. */
    <T> T withTimeIndex(RemoteSegmentMetadata segment, Lookup<TimeIndex, T> lookup) throws RemoteStorageException {
        return with(segment, IndexType.TIMESTAMP, lookup);
    }

    /**
     * Runs {@code lookup} on the segment's aborted-transaction index; a segment uploaded without one (it held no
     * aborted transaction) gets an empty index, cached like any other so the store is asked once.
     */
    <T> T withTxnIndex(RemoteSegmentMetadata segment, Lookup<TransactionIndex, T> lookup)
            throws RemoteStorageException {
        return with(segment, IndexType.TRANSACTION, lookup);
    }

    /** Whether the segment's offset index is cached or being downloaded (so a lookup will not wait for a fresh one). */
    boolean hasOffsetIndex(RemoteSegmentMetadata segment) {
        return cache.contains(new IndexKey(segment.segmentId(), IndexType.OFFSET));
    }

    /** How many index objects were downloaded so far (tests: cache hits do not download). */
    long downloads() {
        return downloads.get();
    }

    /** Bytes of index files held (after pending evictions ran). */
    long cachedBytes() {
        cache.values().cleanUp();
        return cache.values().policy().eviction().orElseThrow().weightedSize().orElse(0);
    }

    private <I, T> T with(RemoteSegmentMetadata segment, IndexType type, Lookup<I, T> lookup)
            throws RemoteStorageException {
        IndexKey key = new IndexKey(segment.segmentId(), type);
        for (int attempt = 1; attempt <= MAX_ACQUIRE_ATTEMPTS; attempt++) {
            CachedIndex cached = cache.getOrLoad(key, () -> download(segment, type));
            if (cached.acquire()) {
                return use(cached, segment, type, lookup);
            }
            // evicted between the get and now (under pressure, or larger than the whole cache): load again
        }
        CachedIndex own = download(segment, type); // the cache cannot keep it: use a private copy once
        own.acquire();
        own.evict();
        return use(own, segment, type, lookup);
    }

    @SuppressWarnings("unchecked")
    private static <I, T> T use(CachedIndex cached, RemoteSegmentMetadata segment, IndexType type, Lookup<I, T> lookup)
            throws RemoteStorageException {
        try {
            return lookup.apply((I) cached.index);
        } catch (IOException e) {
            throw new RemoteStorageException(
                    "lookup in the cached " + type + " index of " + segment.segmentId() + " failed: " + e, e, true);
        } finally {
            cached.release();
        }
    }

    private CachedIndex download(RemoteSegmentMetadata segment, IndexType type) throws RemoteStorageException {
        Path file = dir.resolve(segment.segmentId().id() + "-" + UUID.randomUUID() + "." + type.suffix());
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            try (InputStream in = storage.fetchIndex(segment, type)) {
                Files.copy(in, temp, StandardCopyOption.REPLACE_EXISTING);
            } catch (RemoteResourceNotFoundException e) {
                if (type != IndexType.TRANSACTION) {
                    throw e;
                }
                Files.write(temp, new byte[0]); // only segments with an aborted transaction carry this index
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
            long sizeBytes = Files.size(file);
            Closeable index =
                    switch (type) {
                        case OFFSET -> OffsetIndex.open(file, segment.startOffset());
                        case TIMESTAMP -> TimeIndex.open(file, segment.startOffset());
                        case TRANSACTION -> TransactionIndex.open(file);
                        default -> throw new IllegalArgumentException("no lookups in " + type);
                    };
            downloads.incrementAndGet();
            return new CachedIndex(index, file, sizeBytes);
        } catch (IOException | UncheckedIOException e) {
            deleteQuietly(temp);
            deleteQuietly(file);
            throw new RemoteStorageException(
                    "caching the " + type + " index of " + segment.segmentId() + " in " + dir + " failed: " + e,
                    e,
                    true);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a leftover cache file is removed on the next start
        }
    }

    @Override
    public void close() {
        cache.values().invalidateAll();
        cache.values().cleanUp();
    }
}

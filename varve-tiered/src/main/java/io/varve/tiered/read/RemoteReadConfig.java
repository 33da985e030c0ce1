package io.varve.tiered.read;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of the remote read path. Kafka's keys where Kafka has one; the chunk cache is Varve's own (Kafka reads
 * remote bytes for every fetch).
 *
 * @param readerThreads            {@value #READER_THREADS}: threads reading remote data (Kafka's default 10)
 * @param readerMaxPendingTasks    {@value #READER_MAX_PENDING_TASKS}: reads queued beyond the busy threads; more are
 *                                 refused with a retriable error (Kafka's default 100)
 * @param fetchMaxWaitMs           {@value #FETCH_MAX_WAIT_MS}: how long a fetch waits for its remote read before it
 *                                 answers without those records (Kafka's default 500)
 * @param indexCacheBytes          {@value #INDEX_CACHE_BYTES}: local disk for cached remote offset and time indexes
 *                                 (Kafka's default 1 GiB)
 * @param chunkBytes               {@value #CHUNK_BYTES}: bytes fetched from a segment per remote read (4 MiB)
 * @param chunkCacheBytes          {@value #CHUNK_CACHE_BYTES}: heap for cached chunks (64 MiB)
 * @param indexCacheDir            where the index cache keeps its files (a {@code remote-log-index-cache} directory
 *                                 in the first log dir, as in Kafka)
 */
public record RemoteReadConfig(
        int readerThreads,
        int readerMaxPendingTasks,
        long fetchMaxWaitMs,
        long indexCacheBytes,
        int chunkBytes,
        long chunkCacheBytes,
        Path indexCacheDir) {
    public static final String READER_THREADS = "remote.log.reader.threads";
    public static final String READER_MAX_PENDING_TASKS = "remote.log.reader.max.pending.tasks";
    public static final String FETCH_MAX_WAIT_MS = "remote.fetch.max.wait.ms";
    public static final String INDEX_CACHE_BYTES = "remote.log.index.file.cache.total.size.bytes";
    public static final String CHUNK_BYTES = "remote.log.reader.chunk.size.bytes";
    public static final String CHUNK_CACHE_BYTES = "remote.log.reader.chunk.cache.size.bytes";
    /** Directory name of the index cache under a log dir (Kafka's). */
    public static final String INDEX_CACHE_DIR_NAME = "remote-log-index-cache";

    public static final int DEFAULT_READER_THREADS = 10;
    public static final int DEFAULT_READER_MAX_PENDING_TASKS = 100;
    public static final long DEFAULT_FETCH_MAX_WAIT_MS = 500;
    public static final long DEFAULT_INDEX_CACHE_BYTES = 1024L * 1024 * 1024;
    public static final int DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;
    public static final long DEFAULT_CHUNK_CACHE_BYTES = 64L * 1024 * 1024;

    public RemoteReadConfig {
        Objects.requireNonNull(indexCacheDir, "indexCacheDir");
        require(readerThreads >= 1, READER_THREADS + " must be at least 1");
        require(readerMaxPendingTasks >= 1, READER_MAX_PENDING_TASKS + " must be at least 1");
        require(fetchMaxWaitMs >= 1, FETCH_MAX_WAIT_MS + " must be at least 1");
        require(indexCacheBytes >= 1, INDEX_CACHE_BYTES + " must be at least 1");
        require(chunkBytes >= 1024, CHUNK_BYTES + " must be at least 1024");
        require(
                chunkCacheBytes >= chunkBytes,
                CHUNK_CACHE_BYTES + " must hold at least one chunk of " + chunkBytes + " bytes");
    }

    /** Kafka's defaults, the index cache under {@code logDir}. */
    public static RemoteReadConfig defaults(Path logDir) {
        return new RemoteReadConfig(
                DEFAULT_READER_THREADS,
                DEFAULT_READER_MAX_PENDING_TASKS,
                DEFAULT_FETCH_MAX_WAIT_MS,
                DEFAULT_INDEX_CACHE_BYTES,
                DEFAULT_CHUNK_BYTES,
                DEFAULT_CHUNK_CACHE_BYTES,
                logDir.resolve(INDEX_CACHE_DIR_NAME));
    }

    /** The settings in broker properties ({@code key → value}), defaults for absent keys; the index cache under {@code logDir}. */
    public static RemoteReadConfig from(Map<String, ?> props, Path logDir) {
        return new RemoteReadConfig(
                intNumber(props, READER_THREADS, DEFAULT_READER_THREADS),
                intNumber(props, READER_MAX_PENDING_TASKS, DEFAULT_READER_MAX_PENDING_TASKS),
                number(props, FETCH_MAX_WAIT_MS, DEFAULT_FETCH_MAX_WAIT_MS),
                number(props, INDEX_CACHE_BYTES, DEFAULT_INDEX_CACHE_BYTES),
                intNumber(props, CHUNK_BYTES, DEFAULT_CHUNK_BYTES),
                number(props, CHUNK_CACHE_BYTES, DEFAULT_CHUNK_CACHE_BYTES),
                logDir.resolve(INDEX_CACHE_DIR_NAME));
    }

    private static long number(Map<String, ?> props, String key, long defaultValue) {
        Object value = props.get(key);
        if (value == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(String.valueOf(value).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + value + " is not a number.", e);
        }
    }

    private static int intNumber(Map<String, ?> props, String key, int defaultValue) {
        long value = number(props, key, defaultValue);
        if (value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(key + "=" + value + " is too large.");
        }
        return (int) value;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message + ".");
        }
    }
}

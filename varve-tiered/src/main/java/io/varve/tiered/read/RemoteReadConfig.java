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
 * @param chunkCacheBytes          {@value #CHUNK_CACHE_BYTES}: heap for cached chunks (64 MiB); with zero-copy reads
 *                                 no bytes are cached on the heap, and this bounds how many chunks read ahead into
 *                                 the page cache are remembered as there
 * @param indexCacheDir            where the index cache keeps its files (a {@code remote-log-index-cache} directory
 *                                 in the first log dir, as in Kafka)
 * @param readAheadChunks          {@value #READ_AHEAD_CHUNKS}: chunks loaded ahead of a sequential reader beyond the
 *                                 one its next fetch starts in (4: 16 MiB with 4 MiB chunks)
 * @param readAheadThreads         {@value #READ_AHEAD_THREADS}: threads loading chunks ahead (2, so that the store
 *                                 or disk has more than one read in flight)
 * @param zeroCopyEnable           {@value #ZERO_COPY_ENABLE}: serve remote bytes from the remote object's own file
 *                                 with sendfile when the backend keeps objects as local files (the filesystem
 *                                 backend); false copies them through the heap chunk cache as for S3
 */
public record RemoteReadConfig(
        int readerThreads,
        int readerMaxPendingTasks,
        long fetchMaxWaitMs,
        long indexCacheBytes,
        int chunkBytes,
        long chunkCacheBytes,
        Path indexCacheDir,
        int readAheadChunks,
        int readAheadThreads,
        boolean zeroCopyEnable) {
    public static final String READER_THREADS = "remote.log.reader.threads";
    public static final String READER_MAX_PENDING_TASKS = "remote.log.reader.max.pending.tasks";
    public static final String FETCH_MAX_WAIT_MS = "remote.fetch.max.wait.ms";
    public static final String INDEX_CACHE_BYTES = "remote.log.index.file.cache.total.size.bytes";
    public static final String CHUNK_BYTES = "remote.log.reader.chunk.size.bytes";
    public static final String CHUNK_CACHE_BYTES = "remote.log.reader.chunk.cache.size.bytes";
    public static final String READ_AHEAD_CHUNKS = "remote.log.reader.read.ahead.chunks";
    public static final String READ_AHEAD_THREADS = "remote.log.reader.read.ahead.threads";
    public static final String ZERO_COPY_ENABLE = "remote.log.reader.zero.copy.enable";
    /** Directory name of the index cache under a log dir (Kafka's). */
    public static final String INDEX_CACHE_DIR_NAME = "remote-log-index-cache";

    public static final int DEFAULT_READER_THREADS = 10;
    public static final int DEFAULT_READER_MAX_PENDING_TASKS = 100;
    public static final long DEFAULT_FETCH_MAX_WAIT_MS = 500;
    public static final long DEFAULT_INDEX_CACHE_BYTES = 1024L * 1024 * 1024;
    public static final int DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;
    public static final long DEFAULT_CHUNK_CACHE_BYTES = 64L * 1024 * 1024;
    public static final int DEFAULT_READ_AHEAD_CHUNKS = 4;
    public static final int DEFAULT_READ_AHEAD_THREADS = 2;
    public static final boolean DEFAULT_ZERO_COPY_ENABLE = true;
    /** Read-ahead depth beyond which one sequential reader would hold a whole 64 MiB chunk cache of 4 MiB chunks. */
    private static final int MAX_READ_AHEAD_CHUNKS = 16;

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
        require(
                readAheadChunks >= 0 && readAheadChunks <= MAX_READ_AHEAD_CHUNKS,
                READ_AHEAD_CHUNKS + " must be between 0 and " + MAX_READ_AHEAD_CHUNKS);
        require(readAheadThreads >= 1, READ_AHEAD_THREADS + " must be at least 1");
    }

    /** The settings before read-ahead depth, read-ahead threads and zero copy were settable: their defaults. */
    public RemoteReadConfig(
            int readerThreads,
            int readerMaxPendingTasks,
            long fetchMaxWaitMs,
            long indexCacheBytes,
            int chunkBytes,
            long chunkCacheBytes,
            Path indexCacheDir) {
        this(
                readerThreads,
                readerMaxPendingTasks,
                fetchMaxWaitMs,
                indexCacheBytes,
                chunkBytes,
                chunkCacheBytes,
                indexCacheDir,
                DEFAULT_READ_AHEAD_CHUNKS,
                DEFAULT_READ_AHEAD_THREADS,
                DEFAULT_ZERO_COPY_ENABLE);
    }

    /** These settings with read-ahead depth {@code chunks} and zero copy on or off (tests). */
    public RemoteReadConfig withReadAhead(int chunks, boolean zeroCopy) {
        return new RemoteReadConfig(
                readerThreads,
                readerMaxPendingTasks,
                fetchMaxWaitMs,
                indexCacheBytes,
                chunkBytes,
                chunkCacheBytes,
                indexCacheDir,
                chunks,
                readAheadThreads,
                zeroCopy);
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
                logDir.resolve(INDEX_CACHE_DIR_NAME),
                DEFAULT_READ_AHEAD_CHUNKS,
                DEFAULT_READ_AHEAD_THREADS,
                DEFAULT_ZERO_COPY_ENABLE);
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
                logDir.resolve(INDEX_CACHE_DIR_NAME),
                intNumber(props, READ_AHEAD_CHUNKS, DEFAULT_READ_AHEAD_CHUNKS),
                intNumber(props, READ_AHEAD_THREADS, DEFAULT_READ_AHEAD_THREADS),
                bool(props, ZERO_COPY_ENABLE, DEFAULT_ZERO_COPY_ENABLE));
    }

    private static boolean bool(Map<String, ?> props, String key, boolean defaultValue) {
        Object value = props.get(key);
        if (value == null) {
            return defaultValue;
        }
        String text = String.valueOf(value).trim();
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(text);
        }
        throw new IllegalArgumentException(key + "=" + value + " is not true or false.");
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

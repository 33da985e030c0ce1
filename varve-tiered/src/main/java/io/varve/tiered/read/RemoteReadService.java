package io.varve.tiered.read;

import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.spi.RemoteStorage;
import io.varve.tiered.spi.RemoteStorageException;
import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's remote read path: runs {@link RemoteLogReader} work on a bounded pool of reader threads and hands back
 * futures, so request and network threads never wait on the store. A full queue refuses the read at once (a
 * retriable error for that partition) rather than queueing without bound. Read-ahead runs on threads of its own
 * ({@code remote.log.reader.read.ahead.threads}) with a bounded queue and is dropped, not queued, when that is full:
 * it is only an optimisation. Neither pool is a request, network or append thread, so a consumer catching up on
 * remote data costs producers only CPU and disk, never a thread they wait on.
 *
 * <p>With a backend that keeps objects as local files (the filesystem backend) and {@code
 * remote.log.reader.zero.copy.enable}, fetches are answered with ranges of those files ({@link FileSegmentBytes}),
 * sent with sendfile; otherwise from heap chunks ({@link ChunkCache}).
 */
public final class RemoteReadService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RemoteReadService.class);
    /** Chunks waiting to be read ahead, per read-ahead chunk of depth; beyond it read-ahead is skipped. */
    private static final int READ_AHEAD_PENDING_PER_CHUNK = 16;
    /** Remote object files kept open for zero-copy reads. */
    private static final int MAX_OPEN_REMOTE_FILES = 128;

    /** Work done with the reader on a reader thread. */
    @FunctionalInterface
    public interface RemoteCall<T> {
        T call(RemoteLogReader reader) throws RemoteStorageException;
    }

    private final RemoteReadConfig config;
    private final ThreadPoolExecutor readers;
    private final ThreadPoolExecutor readAhead;
    private final RemoteIndexCache indexes;
    private final ChunkCache chunks;
    private final RemoteFileChannels files;
    private final SegmentBytes bytes;
    private final RemoteLogReader reader;
    private final RemoteStoreAlarm alarm;
    private volatile java.util.function.LongConsumer readTimeListener = nanos -> {};

    public RemoteReadService(RemoteStorage storage, RemoteSegmentSource segments, RemoteReadConfig config)
            throws IOException {
        this(storage, segments, config, System::currentTimeMillis);
    }

    RemoteReadService(
            RemoteStorage storage, RemoteSegmentSource segments, RemoteReadConfig config, LongSupplier clockMs)
            throws IOException {
        this.config = config;
        this.readers = pool("varve-remote-reader-", config.readerThreads(), config.readerMaxPendingTasks());
        this.readAhead = pool(
                "varve-remote-read-ahead-",
                config.readAheadThreads(),
                READ_AHEAD_PENDING_PER_CHUNK * Math.max(1, config.readAheadChunks()));
        this.indexes = new RemoteIndexCache(storage, config.indexCacheDir(), config.indexCacheBytes());
        this.chunks = new ChunkCache(storage, config.chunkBytes(), config.chunkCacheBytes(), readAhead);
        if (config.zeroCopyEnable()) {
            this.files = new RemoteFileChannels(storage, MAX_OPEN_REMOTE_FILES);
            this.bytes = new FileSegmentBytes(files, chunks, config.chunkCacheBytes(), readAhead);
        } else {
            this.files = null;
            this.bytes = chunks;
        }
        this.reader = new RemoteLogReader(segments, bytes, indexes, config.readAheadChunks());
        this.alarm = new RemoteStoreAlarm(clockMs);
        log.info(
                "Remote reads: {} reader threads, {} pending reads at most, {} byte chunks, {} bytes of chunk cache, "
                        + "{} chunks read ahead by {} threads, zero copy where the backend keeps local files {}, "
                        + "{} bytes of index cache in {}",
                config.readerThreads(),
                config.readerMaxPendingTasks(),
                config.chunkBytes(),
                config.chunkCacheBytes(),
                config.readAheadChunks(),
                config.readAheadThreads(),
                config.zeroCopyEnable() ? "on" : "off",
                config.indexCacheBytes(),
                config.indexCacheDir());
    }

    public RemoteReadConfig config() {
        return config;
    }

    /** Reads a fetch's batches on a reader thread. The future fails with the store's error or a refusal when busy. */
    public CompletableFuture<RemoteFetchResult> fetch(RemoteFetchRequest request) {
        return submit(r -> r.read(request));
    }

    /** Runs {@code call} on a reader thread; failures of the store feed the outage alarm. */
    public <T> CompletableFuture<T> submit(RemoteCall<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        long submittedNanos = System.nanoTime();
        try {
            readers.execute(() -> {
                try {
                    T value = call.call(reader);
                    alarm.succeeded();
                    readTimeListener.accept(System.nanoTime() - submittedNanos);
                    result.complete(value);
                } catch (OffsetOutOfRangeException e) {
                    result.completeExceptionally(e); // the client's offset, not the store
                } catch (RemoteStorageException | RuntimeException e) {
                    alarm.failed(e);
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new RemoteStorageException(
                    "all " + config.readerThreads() + " remote reader threads are busy and "
                            + config.readerMaxPendingTasks() + " reads wait",
                    e,
                    true));
        }
        return result;
    }

    /**
     * Tells {@code listener} the time of every later successful read, from its submission (queueing included) until
     * its result is ready, in nanoseconds.
     */
    public void onRead(java.util.function.LongConsumer listener) {
        this.readTimeListener = listener;
    }

    /** Chunks the readers asked the chunk cache for since start. */
    public long chunkLookups() {
        return bytes.lookups();
    }

    /** Of {@link #chunkLookups()}, those fetched from the store (neither cached nor being read ahead). */
    public long chunkMisses() {
        return bytes.misses();
    }

    /** True between a failed remote read and the next successful one. */
    public boolean storeFailing() {
        return alarm.inOutage();
    }

    /** Failed remote reads since start. */
    public long failedReads() {
        return alarm.totalFailures();
    }

    /** Reads waiting for a reader thread. */
    public int pendingReads() {
        return readers.getQueue().size();
    }

    /** The reader itself, for tests that call it on their own thread. */
    RemoteLogReader reader() {
        return reader;
    }

    /** Whether the chunk is loaded or loading: in the heap cache, or read ahead into the page cache. */
    boolean chunkCachedOrLoading(RemoteSegmentMetadata segment, int chunkIndex) {
        return bytes instanceof FileSegmentBytes file
                ? file.warmOrWarming(segment, chunkIndex)
                : chunks.contains(segment.segmentId(), chunkIndex);
    }

    /** Remote object files open for zero-copy reads (tests). */
    long openRemoteFiles() {
        return files == null ? 0 : files.openFiles();
    }

    long indexDownloads() {
        return indexes.downloads();
    }

    long cachedChunkBytes() {
        return chunks.cachedBytes();
    }

    long cachedIndexBytes() {
        return indexes.cachedBytes();
    }

    @Override
    public void close() {
        readers.shutdownNow();
        readAhead.shutdownNow();
        try {
            if (!readers.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("Remote reader threads did not stop within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        indexes.close();
        if (files != null) {
            files.close();
        }
    }

    private static ThreadPoolExecutor pool(String namePrefix, int threads, int maxPending) {
        AtomicInteger ids = new AtomicInteger();
        return new ThreadPoolExecutor(
                threads,
                threads,
                60,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(maxPending),
                r -> {
                    Thread t = new Thread(r, namePrefix + ids.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                },
                new ThreadPoolExecutor.AbortPolicy());
    }
}

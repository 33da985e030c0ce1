package io.varve.broker.tiered;

import io.varve.broker.protocol.FileSliceRecords;
import io.varve.broker.protocol.WireRecords;
import io.varve.storage.PartitionLog;
import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import io.varve.storage.segment.AbortedTxn;
import io.varve.storage.segment.TransactionIndex;
import io.varve.tiered.manager.RemoteLogManager;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;
import io.varve.tiered.read.RemoteBatch;
import io.varve.tiered.read.RemoteFetchRequest;
import io.varve.tiered.read.RemoteFetchResult;
import io.varve.tiered.read.RemoteLogReader;
import io.varve.tiered.read.RemoteReadConfig;
import io.varve.tiered.read.RemoteReadService;
import io.varve.tiered.read.RemoteRecords;
import io.varve.tiered.read.RemoteSegmentSource;
import io.varve.tiered.spi.RemoteStorageException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Routes reads of tiered offsets to remote storage. An offset in {@code [logStartOffset, localLogStartOffset)} lives
 * only remotely; reading it locally would wrongly say OFFSET_OUT_OF_RANGE and make consumers reset.
 *
 * <p>Fetch, as Kafka 4.1 does it (KIP-405): at most one partition of a fetch response is read remotely (the first one
 * needing it; other such partitions answer with no records and no error, and the client asks again); the response
 * does not long-poll but waits for that read up to {@code remote.fetch.max.wait.ms}, then answers without those
 * records. A failed remote read answers UNKNOWN_SERVER_ERROR for that partition, as Kafka does for any remote storage
 * error: the Java consumer logs a warning and fetches the same offset again (no offset reset).
 */
public final class TieredReads implements AutoCloseable {
    private static final TieredReads DISABLED = new TieredReads(null, null);

    /** Null when remote storage is off on this broker. */
    private final RemoteReadService service;

    private final RemoteSegmentSource segments;

    private TieredReads(RemoteReadService service, RemoteSegmentSource segments) {
        this.service = service;
        this.segments = segments;
    }

    /** Reads never go remote (remote.log.storage.system.enable=false). */
    public static TieredReads disabled() {
        return DISABLED;
    }

    /** Remote reads of the segments {@code manager} copied, with the {@code remote.*} read settings in {@code props}. */
    public static TieredReads start(RemoteLogManager manager, java.util.Map<String, String> props, Path firstLogDir)
            throws IOException {
        RemoteSegmentSource segments = segmentsOf(manager);
        return new TieredReads(
                new RemoteReadService(manager.remoteStorage(), segments, RemoteReadConfig.from(props, firstLogDir)),
                segments);
    }

    private static RemoteSegmentSource segmentsOf(RemoteLogManager manager) {
        return new RemoteSegmentSource() {
            @Override
            public List<RemoteSegmentMetadata> copiedSegments(TopicIdPartition partition) {
                return manager.copiedSegments(partition);
            }

            @Override
            public Optional<RemoteSegmentMetadata> segmentForOffset(
                    TopicIdPartition partition, int leaderEpoch, long offset) {
                return manager.segmentForOffset(partition, leaderEpoch, offset);
            }

            @Override
            public Optional<RemoteSegmentMetadata> segmentForOffset(TopicIdPartition partition, long offset) {
                return manager.segmentForOffset(partition, offset);
            }
        };
    }

    /** Reports each remote read's time and the chunk cache's counters to {@code metrics}. */
    public void reportMetrics(io.varve.http.metrics.RemoteReadMetrics metrics) {
        if (service != null) {
            service.onRead(metrics::read);
            metrics.chunkCache(service::chunkLookups, service::chunkMisses);
        }
    }

    /** Whether {@code offset} is held only by remote storage (at or above the log start, below the local start). */
    public boolean servesRemotely(PartitionLog log, long offset) {
        return service != null && offset >= log.logStartOffset() && offset < log.localLogStartOffset();
    }

    /** Whether part of the log lives only in remote storage, so time lookups must search it first. */
    public boolean hasRemoteOnlyData(PartitionLog log) {
        return service != null && log.logStartOffset() < log.localLogStartOffset();
    }

    /**
     * ListOffsets LATEST_TIERED (KIP-1005): the highest offset copied to remote storage and its leader epoch; -1
     * when nothing is (or remote storage is off).
     */
    public OffsetAndEpoch latestTiered(PartitionLog log) {
        if (service == null) {
            return new OffsetAndEpoch(-1, -1);
        }
        long highest = segments.copiedSegments(partitionOf(log)).stream()
                .mapToLong(RemoteSegmentMetadata::endOffset)
                .max()
                .orElse(-1);
        return new OffsetAndEpoch(
                highest,
                highest < 0 ? -1 : epochOf(log.leaderEpochEntries(), highest).orElse(-1));
    }

    /**
     * ListOffsets EARLIEST_PENDING_UPLOAD (KIP-1023): the first offset not yet copied to remote storage and its leader
     * epoch, as Kafka answers it. Not a tiered topic: -1. Nothing copied yet: the log start offset while the whole log
     * is still local, else -1 (segments were copied, but this leader does not know them yet). Otherwise the offset
     * after the highest copied one, but not below the log start.
     */
    public OffsetAndEpoch earliestPendingUpload(PartitionLog log) {
        if (service == null || !log.config().remoteStorageEnable()) {
            return new OffsetAndEpoch(-1, -1);
        }
        return earliestPendingUpload(
                latestTiered(log).offset(), log.logStartOffset(), log.localLogStartOffset(), log.leaderEpochEntries());
    }

    /** The decision of {@link #earliestPendingUpload(PartitionLog)} for a tiered topic, from the log's offsets. */
    static OffsetAndEpoch earliestPendingUpload(
            long highestCopied, long logStart, long localLogStart, List<EpochEntry> lineage) {
        if (highestCopied < 0) {
            if (localLogStart != logStart) {
                return new OffsetAndEpoch(-1, -1);
            }
            // the epoch of the first lineage entry, when it covers the log start (as EARLIEST answers in Kafka)
            int epoch = !lineage.isEmpty() && lineage.get(0).startOffset() <= logStart
                    ? lineage.get(0).epoch()
                    : -1;
            return new OffsetAndEpoch(logStart, epoch);
        }
        long pending = Math.max(highestCopied + 1, logStart);
        return new OffsetAndEpoch(pending, epochOf(lineage, pending).orElse(-1));
    }

    /** An offset and the leader epoch of its record (-1 when unknown). */
    public record OffsetAndEpoch(long offset, int leaderEpoch) {}

    /**
     * The remote read of one fetch partition, to start once the rest of the response is built. {@code out} already
     * carries the partition's offsets; the read fills its records or error.
     */
    public RemoteFetch plan(
            PartitionData out,
            PartitionLog log,
            long fetchOffset,
            int maxBytes,
            boolean minOneBatch,
            boolean readCommitted) {
        if (service == null) {
            throw new IllegalStateException("remote reads are disabled");
        }
        TopicIdPartition partition = new TopicIdPartition(log.topicId(), log.topicPartition());
        return new RemoteFetch(
                out,
                new RemoteFetchRequest(
                        partition,
                        fetchOffset,
                        maxBytes,
                        minOneBatch,
                        epochOf(log.leaderEpochEntries(), fetchOffset),
                        log.logStartOffset()),
                readCommitted ? log : null);
    }

    /** One pending remote partition of a fetch response. */
    public static final class RemoteFetch {
        private final PartitionData out;
        private final RemoteFetchRequest request;
        /** The partition's log when the fetch is read_committed (its aborted transactions go with the records). */
        private final PartitionLog readCommittedLog;

        private RemoteFetch(PartitionData out, RemoteFetchRequest request, PartitionLog readCommittedLog) {
            this.out = out;
            this.request = request;
            this.readCommittedLog = readCommittedLog;
        }
    }

    /** What a remote read brought back: the batches, and for read_committed the aborted transactions among them. */
    private record RemoteRead(RemoteFetchResult result, List<AbortedTxn> aborted) {}

    /**
     * The aborted transactions overlapping the batches read: from the remote segments' transaction indexes, then
     * (when an abort may have its marker above the last remote segment) the local log's. Runs on a reader thread.
     */
    private static List<AbortedTxn> abortedTransactions(
            RemoteLogReader reader, RemoteFetch fetch, RemoteFetchResult result) throws RemoteStorageException {
        if (result.sizeBytes() == 0) {
            return List.of();
        }
        long upperBoundOffset = result.nextOffset();
        long fetchOffset = fetch.request.fetchOffset();
        TransactionIndex.Collected remote =
                reader.abortedTransactions(fetch.request.partition(), fetchOffset, upperBoundOffset);
        if (remote.complete()) {
            return remote.aborted();
        }
        List<AbortedTxn> all = new ArrayList<>(remote.aborted());
        all.addAll(fetch.readCommittedLog.abortedTransactions(fetchOffset, upperBoundOffset));
        return all;
    }

    /**
     * Completes {@code response} once the remote read of {@code fetch} ends or {@code remote.fetch.max.wait.ms}
     * passes, whichever comes first. Runs on a reader thread (or the JDK's timeout thread), never blocks the caller.
     */
    public CompletableFuture<ApiMessage> complete(FetchResponseData response, RemoteFetch fetch) {
        CompletableFuture<RemoteRead> read = service.submit(reader -> {
            RemoteFetchResult result = reader.read(fetch.request);
            return new RemoteRead(
                    result, fetch.readCommittedLog == null ? null : abortedTransactions(reader, fetch, result));
        });
        return read.completeOnTimeout(null, service.config().fetchMaxWaitMs(), TimeUnit.MILLISECONDS)
                .handle((done, error) -> {
                    if (error != null) {
                        fetch.out.setErrorCode(errorFor(error).code()).setRecords(WireRecords.empty());
                    } else if (done != null && done.result().sizeBytes() > 0) {
                        // a file range (the filesystem backend's own object, already in the page cache) goes out
                        // with sendfile like a local segment; heap chunks as they are
                        RemoteRecords records = done.result().records();
                        fetch.out.setRecords(
                                records instanceof RemoteRecords.InFile file
                                        ? new FileSliceRecords(file.channel(), file.position(), file.sizeBytes())
                                        : WireRecords.of(((RemoteRecords.InMemory) records).bytes()));
                        if (done.aborted() != null) {
                            List<FetchResponseData.AbortedTransaction> aborted = new ArrayList<>();
                            for (AbortedTxn txn : done.aborted()) {
                                aborted.add(new FetchResponseData.AbortedTransaction()
                                        .setProducerId(txn.producerId())
                                        .setFirstOffset(txn.firstOffset()));
                            }
                            fetch.out.setAbortedTransactions(aborted);
                        }
                    }
                    return response; // a timeout answers the partition without records; the client fetches again
                });
    }

    /** Runs {@code work} on a reader thread, where it may call the blocking {@link RemoteLogReader} directly. */
    public <T> CompletableFuture<T> onReaderThread(RemoteReadService.RemoteCall<T> work) {
        return service.submit(work);
    }

    /**
     * The first remote batch reaching {@code timestampMs} below the local log start (blocking: call it on a reader
     * thread, see {@link #onReaderThread}).
     */
    public Optional<RemoteBatch> firstRemoteBatchAtOrAfter(RemoteLogReader reader, PartitionLog log, long timestampMs)
            throws RemoteStorageException {
        return reader.firstBatchWithTimestampAtLeast(
                partitionOf(log), timestampMs, log.logStartOffset(), log.localLogStartOffset());
    }

    /** The remote batch with the largest timestamp below the local log start (blocking, on a reader thread). */
    public Optional<RemoteBatch> remoteMaxTimestampBatch(RemoteLogReader reader, PartitionLog log)
            throws RemoteStorageException {
        return reader.maxTimestampBatch(partitionOf(log), log.logStartOffset(), log.localLogStartOffset());
    }

    /** Kafka's error for a failed remote read: the client's offset, or UNKNOWN_SERVER_ERROR for a store failure. */
    public static Errors errorFor(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof OffsetOutOfRangeException) {
            return Errors.OFFSET_OUT_OF_RANGE;
        }
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    private static TopicIdPartition partitionOf(PartitionLog log) {
        return new TopicIdPartition(log.topicId(), log.topicPartition());
    }

    /** The epoch the lineage gives {@code offset}: the last entry starting at or before it. */
    static OptionalInt epochOf(List<EpochEntry> lineage, long offset) {
        OptionalInt epoch = OptionalInt.empty();
        for (EpochEntry entry : lineage) {
            if (entry.startOffset() > offset) {
                break;
            }
            epoch = OptionalInt.of(entry.epoch());
        }
        return epoch;
    }

    @Override
    public void close() {
        if (service != null) {
            service.close();
        }
    }
}

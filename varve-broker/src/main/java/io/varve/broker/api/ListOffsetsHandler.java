package io.varve.broker.api;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.replica.Partition;
import io.varve.broker.replica.ReplicaManager;
import io.varve.broker.tiered.TieredReads;
import io.varve.storage.PartitionLog;
import io.varve.storage.TimestampAndOffset;
import io.varve.tiered.read.RemoteBatch;
import io.varve.tiered.read.RemoteLogReader;
import io.varve.tiered.spi.RemoteStorageException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListOffsets: earliest, latest, max-timestamp and by-timestamp lookups on the leader's log. As in Kafka, LATEST is
 * the high watermark, or the last stable offset for isolation_level READ_COMMITTED (v2+), and a lookup by time or
 * max timestamp finds nothing at or past that offset. A negative timestamp is one of the sentinels, each from the
 * version Kafka gives it (EARLIEST_PENDING_UPLOAD from v11); any other, or one newer than the request's version, is
 * UNSUPPORTED_VERSION, as Kafka answers.
 */
public final class ListOffsetsHandler implements ApiHandler {
    static final long LATEST = -1L;
    static final long EARLIEST = -2L;
    static final long MAX_TIMESTAMP = -3L;
    static final long EARLIEST_LOCAL = -4L;
    static final long LATEST_TIERED = -5L;
    static final long EARLIEST_PENDING_UPLOAD = -6L;
    /** Responses carry the leader epoch from this version on. */
    private static final short FIRST_LEADER_EPOCH_VERSION = 4;
    /** Requests carry isolation_level from this version on. */
    private static final short FIRST_ISOLATION_LEVEL_VERSION = 2;

    private final MetadataCache cache;
    private final ReplicaManager replicaManager;

    /**
     * The first request version that carries a sentinel timestamp, or -1 for a negative timestamp that is none: the
     * table Kafka's broker checks before it looks anything up.
     */
    static short firstVersionOf(long sentinel) {
        if (sentinel == LATEST || sentinel == EARLIEST) {
            return 1;
        } else if (sentinel == MAX_TIMESTAMP) {
            return 7;
        } else if (sentinel == EARLIEST_LOCAL) {
            return 8;
        } else if (sentinel == LATEST_TIERED) {
            return 9;
        } else if (sentinel == EARLIEST_PENDING_UPLOAD) {
            return 11;
        }
        return -1;
    }

    public ListOffsetsHandler(MetadataCache cache, ReplicaManager replicaManager) {
        this.cache = cache;
        this.replicaManager = replicaManager;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        ListOffsetsRequestData data = request.body();
        MetadataSnapshot snapshot = cache.snapshot();
        if (needsRemoteLookup(snapshot, data)) {
            // time lookups that must search remote segments run on a remote reader thread, never on this one
            return replicaManager.tieredReads().onReaderThread(reader -> respond(request, data, snapshot, reader));
        }
        return CompletableFuture.completedFuture(respond(request, data, snapshot, null));
    }

    /** Whether a by-time or max-timestamp lookup touches a log part of which lives only in remote storage. */
    private boolean needsRemoteLookup(MetadataSnapshot snapshot, ListOffsetsRequestData data) {
        TieredReads tiered = replicaManager.tieredReads();
        for (ListOffsetsTopic topic : data.topics()) {
            for (ListOffsetsPartition p : topic.partitions()) {
                if (p.timestamp() >= 0 || p.timestamp() == MAX_TIMESTAMP) {
                    Optional<PartitionLog> log =
                            replicaManager.localLog(new TopicPartition(topic.name(), p.partitionIndex()));
                    if (log.isPresent() && tiered.hasRemoteOnlyData(log.get())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** @param reader the remote reader when running on a reader thread, else null (no remote search) */
    private ApiMessage respond(
            RequestContext request, ListOffsetsRequestData data, MetadataSnapshot snapshot, RemoteLogReader reader) {
        ListOffsetsResponseData response = new ListOffsetsResponseData();
        boolean readCommitted = request.apiVersion() >= FIRST_ISOLATION_LEVEL_VERSION
                && data.isolationLevel() == IsolationLevel.READ_COMMITTED.id();
        for (ListOffsetsTopic topic : data.topics()) {
            ListOffsetsTopicResponse topicResponse = new ListOffsetsTopicResponse().setName(topic.name());
            for (ListOffsetsPartition p : topic.partitions()) {
                ListOffsetsPartitionResponse answer = p.timestamp() < 0
                                && (firstVersionOf(p.timestamp()) < 0
                                        || request.apiVersion() < firstVersionOf(p.timestamp()))
                        ? new ListOffsetsPartitionResponse()
                                .setPartitionIndex(p.partitionIndex())
                                .setErrorCode(Errors.UNSUPPORTED_VERSION.code())
                                .setTimestamp(-1)
                                .setOffset(-1)
                                .setLeaderEpoch(-1)
                        : lookup(
                                snapshot,
                                new TopicPartition(topic.name(), p.partitionIndex()),
                                p,
                                readCommitted,
                                reader);
                if (request.apiVersion() < FIRST_LEADER_EPOCH_VERSION) {
                    answer.setLeaderEpoch(-1);
                }
                topicResponse.partitions().add(answer);
            }
            response.topics().add(topicResponse);
        }
        return response;
    }

    private ListOffsetsPartitionResponse lookup(
            MetadataSnapshot snapshot,
            TopicPartition tp,
            ListOffsetsPartition p,
            boolean readCommitted,
            RemoteLogReader reader) {
        ListOffsetsPartitionResponse out = new ListOffsetsPartitionResponse()
                .setPartitionIndex(p.partitionIndex())
                .setTimestamp(-1)
                .setOffset(-1)
                .setLeaderEpoch(-1);
        try {
            Partition partition = replicaManager.leaderPartition(snapshot, tp);
            partition.checkLeaderEpoch(p.currentLeaderEpoch());
            PartitionLog log = partition.log();
            int leaderEpoch = log.latestLeaderEpoch();
            long ts = p.timestamp();
            if ((ts == LATEST || ts == MAX_TIMESTAMP || ts >= 0) && !partition.highWatermarkKnown()) {
                // a new leader's high watermark may still be below the old one's: an answer could go back in time
                out.setErrorCode(Errors.OFFSET_NOT_AVAILABLE.code());
                return out;
            }
            long readableEnd = readCommitted ? log.lastStableOffset() : log.highWatermark();
            if (ts == LATEST) {
                out.setOffset(readableEnd).setLeaderEpoch(leaderEpoch);
            } else if (ts == EARLIEST) {
                // as Kafka: the epoch the first offset was written in, not the current one
                long start = log.logStartOffset();
                out.setOffset(start).setLeaderEpoch(log.leaderEpochAt(start));
            } else if (ts == EARLIEST_LOCAL) {
                // KIP-1005: the first offset on local disk (above the log start once tiered data left the disk)
                long localStart = log.localLogStartOffset();
                out.setOffset(localStart).setLeaderEpoch(log.leaderEpochAt(localStart));
            } else if (ts == LATEST_TIERED) {
                // the highest offset in remote storage; -1 when nothing is tiered, as Kafka answers
                TieredReads.OffsetAndEpoch tiered = replicaManager.tieredReads().latestTiered(log);
                out.setOffset(tiered.offset()).setLeaderEpoch(tiered.leaderEpoch());
            } else if (ts == EARLIEST_PENDING_UPLOAD) {
                TieredReads.OffsetAndEpoch pending =
                        replicaManager.tieredReads().earliestPendingUpload(log);
                if (pending.offset() < readableEnd) {
                    out.setOffset(pending.offset()).setLeaderEpoch(pending.leaderEpoch());
                } else if (!partition.highWatermarkKnown()) {
                    out.setErrorCode(Errors.OFFSET_NOT_AVAILABLE.code());
                    return out;
                }
                // at or past the readable end: no offset, as Kafka filters every lookup but LATEST and EARLIEST*
            } else if (ts == MAX_TIMESTAMP || ts >= 0) {
                Optional<TimestampAndOffset> found =
                        ts == MAX_TIMESTAMP ? maxTimestamp(log, reader) : offsetForTimestamp(log, ts, reader);
                found.filter(f -> f.offset() < readableEnd).ifPresent(f -> out.setTimestamp(f.timestamp())
                        .setOffset(f.offset())
                        .setLeaderEpoch(f.leaderEpoch()));
            } else {
                out.setErrorCode(Errors.INVALID_REQUEST.code());
                return out;
            }
            out.setErrorCode(Errors.NONE.code());
        } catch (ApiException e) {
            out.setErrorCode(Errors.forException(e).code());
        } catch (RemoteStorageException e) {
            out.setErrorCode(TieredReads.errorFor(e).code());
        }
        return out;
    }

    /** Remote segments first (they hold the lower offsets), then the local log. */
    private Optional<TimestampAndOffset> offsetForTimestamp(PartitionLog log, long ts, RemoteLogReader reader)
            throws RemoteStorageException {
        TieredReads tiered = replicaManager.tieredReads();
        if (reader != null && tiered.hasRemoteOnlyData(log)) {
            Optional<RemoteBatch> remote = tiered.firstRemoteBatchAtOrAfter(reader, log, ts);
            if (remote.isPresent()) {
                return Optional.of(RecordLookup.firstRecordAtOrAfter(remote.get(), ts, log.logStartOffset()));
            }
        }
        return log.offsetForTimestamp(ts).map(batch -> RecordLookup.firstRecordAtOrAfter(log, batch, ts));
    }

    /** The larger of the remote and local maxima; on a tie the earlier (remote) record, as Kafka answers. */
    private Optional<TimestampAndOffset> maxTimestamp(PartitionLog log, RemoteLogReader reader)
            throws RemoteStorageException {
        Optional<TimestampAndOffset> local =
                log.maxTimestampAndOffset().map(batch -> RecordLookup.maxTimestampRecord(log, batch));
        TieredReads tiered = replicaManager.tieredReads();
        if (reader == null || !tiered.hasRemoteOnlyData(log)) {
            return local;
        }
        Optional<TimestampAndOffset> remote =
                tiered.remoteMaxTimestampBatch(reader, log).map(RecordLookup::maxTimestampRecord);
        if (remote.isEmpty() || local.isEmpty()) {
            return remote.isPresent() ? remote : local;
        }
        return local.get().timestamp() > remote.get().timestamp() ? local : remote;
    }
}

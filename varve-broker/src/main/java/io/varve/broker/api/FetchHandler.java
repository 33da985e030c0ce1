package io.varve.broker.api;

import io.varve.broker.fetchsession.FetchSessionCache;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.observe.FetchTraffic;
import io.varve.broker.protocol.FileSliceRecords;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.protocol.WireRecords;
import io.varve.broker.replica.Partition;
import io.varve.broker.replica.ReplicaManager;
import io.varve.broker.tiered.TieredReads;
import io.varve.storage.LogSlice;
import io.varve.storage.PartitionLog;
import io.varve.storage.epoch.EpochEndOffset;
import io.varve.storage.segment.AbortedTxn;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Fetch for consumers and for followers. A follower (a replica id, or from v15 a ReplicaState, of a broker that is a
 * replica of the partition) reads up to the log end, not the high watermark; its fetch offset is its progress, which
 * may move the high watermark and bring it into the ISR; when the epoch of its last batch does not end where it
 * fetches from, it gets the diverging epoch (v12+) to truncate to instead of records. A consumer gets whole batches from the leader's log up to the high watermark (the last stable offset for
 * isolation_level READ_COMMITTED, with the aborted transactions overlapping what is returned), within max.bytes and the
 * per-partition limits, long-polling until min.bytes or max.wait.ms. Record bytes go from the segment file to the
 * socket (sendfile) without passing through the heap. From v11 (KIP-392) a consumer naming its rack may be told by the
 * leader to read from an in-sync follower of that rack ({@code replica.selector.class}); a follower serves such
 * consumers up to its own high watermark (learnt from the leader's fetch responses). Incremental fetch sessions
 * (KIP-227) are kept by the {@link FetchSessionCache}: an incremental request reads every partition of its session and
 * is answered with the ones that changed ({@link FetchRequestSession}).
 */
public final class FetchHandler implements ApiHandler {
    private static final short FIRST_TOPIC_ID_VERSION = 13;
    /** From this version a follower names itself in ReplicaState instead of ReplicaId (KIP-903). */
    private static final short FIRST_REPLICA_STATE_VERSION = 15;
    /** KIP-951: the current leader beside NOT_LEADER_OR_FOLLOWER from v12, the leaders' endpoints from v16. */
    private static final short FIRST_CURRENT_LEADER_VERSION = 12;

    private static final short FIRST_NODE_ENDPOINTS_VERSION = 16;
    /** KIP-392: from this version a consumer names its rack and may be served by a follower. */
    private static final short FIRST_RACK_VERSION = 11;
    /** Followers say which high watermark they know (KIP-1166). */
    private static final short FIRST_FOLLOWER_HIGH_WATERMARK_VERSION = 18;
    /** Fetch session ids; 0 means none (FetchMetadata.INVALID_SESSION_ID in the protocol guide). */
    private static final int NO_SESSION = 0;

    private final MetadataCache cache;
    private final ReplicaManager replicaManager;
    private final FetchTraffic traffic;
    private final FetchSessionCache sessions;

    public FetchHandler(
            MetadataCache cache, ReplicaManager replicaManager, FetchTraffic traffic, FetchSessionCache sessions) {
        this.cache = cache;
        this.replicaManager = replicaManager;
        this.traffic = traffic;
        this.sessions = sessions;
    }

    /** One requested partition, resolved against the metadata. */
    private record Target(FetchTopic topic, FetchPartition partition, TopicInfo topicInfo, TopicPartition tp) {}

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        FetchRequestData data = request.body();
        FetchRequestSession session =
                FetchRequestSession.open(sessions, data, request.apiVersion(), replicaId(request) >= 0);
        if (session.error() != Errors.NONE) {
            return CompletableFuture.completedFuture(session.errorResponse());
        }
        return fetch(request, session.topicsToRead())
                .thenApply(response -> traffic.sent(request, session.finish((FetchResponseData) response)));
    }

    private static int replicaId(RequestContext request) {
        FetchRequestData data = request.body();
        return request.apiVersion() >= FIRST_REPLICA_STATE_VERSION
                ? data.replicaState().replicaId()
                : data.replicaId();
    }

    /** Reads {@code topics}: the request's own, or the partitions of its fetch session. */
    private CompletableFuture<ApiMessage> fetch(RequestContext request, List<FetchTopic> topics) {
        FetchRequestData data = request.body();
        boolean byId = request.apiVersion() >= FIRST_TOPIC_ID_VERSION;
        MetadataSnapshot snapshot = cache.snapshot();
        List<Target> targets = new ArrayList<>();
        for (FetchTopic topic : topics) {
            TopicInfo info = byId
                    ? snapshot.topicsById().get(topic.topicId())
                    : snapshot.topicsByName().get(topic.topic());
            for (FetchPartition p : topic.partitions()) {
                targets.add(new Target(
                        topic, p, info, info == null ? null : new TopicPartition(info.name(), p.partition())));
            }
        }
        int replicaId = replicaId(request);
        boolean readCommitted = replicaId < 0
                && request.apiVersion() >= 4
                && data.isolationLevel() == IsolationLevel.READ_COMMITTED.id();
        boolean followerAllowed = replicaId < 0 && request.apiVersion() >= FIRST_RACK_VERSION;
        Reader reader = new Reader(
                data,
                targets,
                byId,
                readCommitted,
                replicaId,
                request.listenerName(),
                request.apiVersion(),
                followerAllowed,
                followerAllowed ? data.rackId() : null);
        Read first = read(reader, snapshot);
        if (first.remote != null) {
            // remote data is there to read: no long poll (Kafka does the same), the read completes the response
            return replicaManager.tieredReads().complete(first.response, first.remote);
        }
        if (data.maxWaitMs() <= 0
                || first.bytes >= data.minBytes()
                || first.hasError
                || first.followerHighWatermarkBehind
                || targets.isEmpty()) {
            return CompletableFuture.completedFuture(first.response);
        }
        CompletableFuture<ApiMessage> result = new CompletableFuture<>();
        List<TopicPartition> watched = targets.stream()
                .filter(t -> t.tp != null)
                .map(Target::tp)
                .distinct()
                .toList();
        replicaManager
                .fetchPurgatory()
                .watch(
                        watched,
                        data.minBytes() - first.bytes,
                        data.maxWaitMs(),
                        () -> !anyAdvanced(first, reader),
                        () -> {
                            try {
                                Read again = read(reader, cache.snapshot());
                                if (again.remote == null) {
                                    result.complete(again.response);
                                } else {
                                    replicaManager
                                            .tieredReads()
                                            .complete(again.response, again.remote)
                                            .whenComplete((r, e) -> {
                                                if (e != null) {
                                                    result.completeExceptionally(e);
                                                } else {
                                                    result.complete(r);
                                                }
                                            });
                                }
                            } catch (RuntimeException e) {
                                result.completeExceptionally(e);
                            }
                        },
                        // KIP-1166: a follower that says which high watermark it knows (v18) learns each move at once
                        replicaId < 0 || request.apiVersion() >= FIRST_FOLLOWER_HIGH_WATERMARK_VERSION);
        return result;
    }

    /** True when a partition's readable end moved: the high watermark, or the last stable offset for read_committed. */
    private boolean anyAdvanced(Read first, Reader reader) {
        List<Target> targets = reader.targets();
        boolean readCommitted = reader.readCommitted();
        int replicaId = reader.replicaId();
        MetadataSnapshot snapshot = cache.snapshot();
        for (int i = 0; i < targets.size(); i++) {
            Target t = targets.get(i);
            if (t.tp == null) {
                continue;
            }
            try {
                PartitionLog log = replicaManager
                        .readablePartition(snapshot, t.tp, reader.followerAllowed())
                        .log();
                if (readableEnd(log, readCommitted, replicaId) != first.readableEnds[i]) {
                    return true;
                }
            } catch (ApiException e) {
                return true;
            }
        }
        return false;
    }

    private static final class Read {
        final FetchResponseData response =
                new FetchResponseData().setSessionId(NO_SESSION).setErrorCode(Errors.NONE.code());
        /** Per target, where reading stopped: the high watermark, or the last stable offset for read_committed. */
        long[] readableEnds;

        long bytes;
        boolean hasError;
        /** A follower (Fetch v18) named a high watermark below the leader's: answered at once (KIP-1166). */
        boolean followerHighWatermarkBehind;
        /** The one partition of this response read from remote storage (KIP-405), or null. */
        TieredReads.RemoteFetch remote;
        /** The leaders named in NOT_LEADER_OR_FOLLOWER answers, for NodeEndpoints (KIP-951). */
        final java.util.Map<Integer, CurrentLeaders.NodeAddress> leaders = new java.util.TreeMap<>();
    }

    /** Where a fetch reads to: the log end for a follower, else the high watermark or last stable offset. */
    private static long readableEnd(PartitionLog log, boolean readCommitted, int replicaId) {
        if (replicaId >= 0) {
            return log.logEndOffset();
        }
        return readCommitted ? log.lastStableOffset() : log.highWatermark();
    }

    /** The arguments of one fetch, read once and again after a long poll. */
    private record Reader(
            FetchRequestData data,
            List<Target> targets,
            boolean byId,
            boolean readCommitted,
            int replicaId,
            String listenerName,
            short apiVersion,
            boolean followerAllowed,
            String clientRack) {}

    private Read read(Reader r, MetadataSnapshot snapshot) {
        FetchRequestData data = r.data();
        List<Target> targets = r.targets();
        boolean byId = r.byId();
        boolean readCommitted = r.readCommitted();
        int replicaId = r.replicaId();
        Read read = new Read();
        read.readableEnds = new long[targets.size()];
        long budget = data.maxBytes() > 0 ? data.maxBytes() : Integer.MAX_VALUE;
        FetchableTopicResponse current = null;
        FetchTopic currentRequestTopic = null;
        for (int i = 0; i < targets.size(); i++) {
            Target t = targets.get(i);
            if (current == null || currentRequestTopic != t.topic) {
                currentRequestTopic = t.topic;
                current = new FetchableTopicResponse()
                        .setTopic(byId ? "" : t.topic.topic())
                        .setTopicId(
                                byId ? t.topic.topicId() : (t.topicInfo != null ? t.topicInfo.id() : Uuid.ZERO_UUID));
                read.response.responses().add(current);
            }
            PartitionData out = new PartitionData()
                    .setPartitionIndex(t.partition.partition())
                    .setHighWatermark(-1)
                    .setLastStableOffset(-1)
                    .setLogStartOffset(-1)
                    .setAbortedTransactions(readCommitted ? new ArrayList<>() : null)
                    .setRecords(WireRecords.empty());
            current.partitions().add(out);
            if (t.tp == null) {
                out.setErrorCode((byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION).code());
                read.hasError = true;
                continue;
            }
            try {
                Partition partition = replicaManager.readablePartition(snapshot, t.tp, r.followerAllowed());
                PartitionLog log = partition.log();
                partition.checkLeaderEpoch(t.partition.currentLeaderEpoch());
                long fetchOffset = t.partition.fetchOffset();
                int preferred = r.clientRack() == null || !partition.isLeader()
                        ? -1
                        : replicaManager.preferredReadReplica(snapshot, partition, r.clientRack(), fetchOffset);
                if (preferred >= 0) {
                    // KIP-392: no records, the consumer goes to the replica of its rack and fetches there
                    out.setErrorCode(Errors.NONE.code())
                            .setHighWatermark(log.highWatermark())
                            .setLastStableOffset(log.lastStableOffset())
                            .setLogStartOffset(log.logStartOffset())
                            .setPreferredReadReplica(preferred);
                    read.hasError = true; // answered at once, as Kafka does
                    continue;
                }
                if (replicaId >= 0) {
                    partition.requireFollower(replicaId);
                    EpochEndOffset diverging = partition.divergence(t.partition.lastFetchedEpoch(), fetchOffset);
                    if (diverging != null) {
                        out.setErrorCode(Errors.NONE.code())
                                .setHighWatermark(log.highWatermark())
                                .setLastStableOffset(log.lastStableOffset())
                                .setLogStartOffset(log.logStartOffset());
                        out.divergingEpoch().setEpoch(diverging.leaderEpoch()).setEndOffset(diverging.endOffset());
                        read.hasError = true; // answered at once: the follower truncates before fetching on
                        continue;
                    }
                    if (replicaManager.tieredReads().servesRemotely(log, fetchOffset)) {
                        // KIP-405: a follower builds what lies below the local start from the remote tier itself
                        out.setErrorCode(Errors.OFFSET_MOVED_TO_TIERED_STORAGE.code())
                                .setHighWatermark(log.highWatermark())
                                .setLastStableOffset(log.lastStableOffset())
                                .setLogStartOffset(log.logStartOffset());
                        read.hasError = true;
                        continue;
                    }
                    partition.followerFetched(replicaId, fetchOffset, t.partition.logStartOffset());
                    // Long.MAX_VALUE (not said) is never behind; -1 (not known) is behind any high watermark
                    if (r.apiVersion() >= FIRST_FOLLOWER_HIGH_WATERMARK_VERSION
                            && t.partition.highWatermark() < log.highWatermark()) {
                        read.followerHighWatermarkBehind = true;
                    }
                }
                // replication throttles apply to followers out of the ISR only (they must not slow acks=all)
                boolean throttled = replicaId >= 0 && !partition.isr().contains(replicaId);
                if (throttled && replicaManager.throttles().leaderMustWait(t.tp)) {
                    out.setErrorCode(Errors.NONE.code())
                            .setHighWatermark(log.highWatermark())
                            .setLastStableOffset(log.lastStableOffset())
                            .setLogStartOffset(log.logStartOffset());
                    continue; // no records now: leader.replication.throttled.rate is spent
                }
                // the last stable offset first: it never passes the high watermark read after it
                long readableEnd = readableEnd(log, readCommitted, replicaId);
                read.readableEnds[i] = readableEnd;
                int maxBytes = (int) Math.min(t.partition.partitionMaxBytes(), budget);
                LogSlice slice = null;
                if (!replicaManager.tieredReads().servesRemotely(log, fetchOffset)) {
                    try {
                        slice = log.readSlice(fetchOffset, Math.max(0, maxBytes), readableEnd, read.bytes == 0);
                    } catch (OffsetOutOfRangeException e) {
                        if (!replicaManager.tieredReads().servesRemotely(log, fetchOffset)) {
                            throw e;
                        } // local retention moved the local start past the offset meanwhile: read it remotely
                    }
                }
                if (slice == null) {
                    budget -= planRemote(read, out, log, fetchOffset, Math.max(0, maxBytes), readCommitted);
                    continue;
                }
                int size = slice.sizeBytes();
                if (throttled) {
                    replicaManager.throttles().leaderSent(t.tp, size);
                }
                read.bytes += size;
                budget -= size;
                out.setErrorCode(Errors.NONE.code())
                        .setHighWatermark(slice.highWatermark())
                        .setLastStableOffset(slice.lastStableOffset())
                        .setLogStartOffset(slice.logStartOffset())
                        .setRecords(
                                size == 0
                                        ? WireRecords.empty()
                                        : slice.copied() != null
                                                ? WireRecords.of(slice.copied())
                                                : new FileSliceRecords(slice.channel(), slice.position(), size));
                if (readCommitted && size > 0) {
                    for (AbortedTxn aborted : log.abortedTransactions(fetchOffset, slice.nextOffset())) {
                        out.abortedTransactions()
                                .add(new FetchResponseData.AbortedTransaction()
                                        .setProducerId(aborted.producerId())
                                        .setFirstOffset(aborted.firstOffset()));
                    }
                }
            } catch (ApiException e) {
                Errors error = Errors.forException(e);
                out.setErrorCode(error.code());
                read.hasError = true;
                if (r.apiVersion() >= FIRST_CURRENT_LEADER_VERSION
                        && (error == Errors.NOT_LEADER_OR_FOLLOWER || error == Errors.FENCED_LEADER_EPOCH)) {
                    CurrentLeaders.fill(snapshot, t.tp, r.listenerName(), out.currentLeader(), read.leaders);
                }
                replicaManager.localLog(t.tp).ifPresent(log -> out.setHighWatermark(log.highWatermark())
                        .setLastStableOffset(log.lastStableOffset())
                        .setLogStartOffset(log.logStartOffset()));
            }
        }
        if (r.apiVersion() >= FIRST_NODE_ENDPOINTS_VERSION && !read.leaders.isEmpty()) {
            read.leaders.forEach((id, ep) -> read.response
                    .nodeEndpoints()
                    .add(new FetchResponseData.NodeEndpoint()
                            .setNodeId(id)
                            .setHost(ep.host())
                            .setPort(ep.port())
                            .setRack(ep.rack())));
        }
        return read;
    }

    /**
     * Answers a partition whose offset only remote storage holds: the first such partition gets a remote read for
     * which {@code maxBytes} are reserved (so the response stays within max.bytes and later partitions do not get
     * the min-one-batch exception); later ones get no records and no error, and the client asks again.
     *
     * @return the bytes reserved from the response budget
     */
    private long planRemote(
            Read read, PartitionData out, PartitionLog log, long fetchOffset, int maxBytes, boolean readCommitted) {
        out.setErrorCode(Errors.NONE.code())
                .setHighWatermark(log.highWatermark())
                .setLastStableOffset(log.lastStableOffset())
                .setLogStartOffset(log.logStartOffset());
        if (read.remote != null) {
            return 0;
        }
        read.remote =
                replicaManager.tieredReads().plan(out, log, fetchOffset, maxBytes, read.bytes == 0, readCommitted);
        read.bytes += maxBytes; // later partitions: no min-one-batch exception (KAFKA-19795)
        return maxBytes;
    }
}

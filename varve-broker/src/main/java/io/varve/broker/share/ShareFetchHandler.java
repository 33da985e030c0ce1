package io.varve.broker.share;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.protocol.WireRecords;
import io.varve.broker.replica.ReplicaManager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData.PartitionData;
import org.apache.kafka.common.message.ShareFetchResponseData.ShareFetchableTopicResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareFetch (v1): steps the member's share session, applies the acknowledgements it carries, then acquires records
 * of the session's partitions for the member — whole batches from the leader's log up to the high watermark, with
 * the acquired offset ranges and their delivery counts beside them (the client hands out only those). When nothing
 * could be acquired it long-polls the fetch purgatory for up to max.wait.ms. A partition appears in the response
 * when it has records, an error or an acknowledgement result.
 */
public final class ShareFetchHandler implements ApiHandler {
    private static final int DEFAULT_MAX_RECORDS = 500;

    private final MetadataCache cache;
    private final ReplicaManager replicaManager;
    private final ShareSessions sessions;
    private final SharePartitions partitions;

    public ShareFetchHandler(
            MetadataCache cache, ReplicaManager replicaManager, ShareSessions sessions, SharePartitions partitions) {
        this.cache = cache;
        this.replicaManager = replicaManager;
        this.sessions = sessions;
        this.partitions = partitions;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        ShareFetchRequestData data = request.body();
        String groupId = data.groupId();
        String memberId = data.memberId();
        if (groupId == null || groupId.isEmpty() || memberId == null || memberId.isEmpty()) {
            return done(error(Errors.INVALID_REQUEST, "GroupId and MemberId must be set."));
        }
        List<SharePartitionKey> named = new ArrayList<>();
        Map<SharePartitionKey, List<SharePartitions.AckBatch>> acks = new LinkedHashMap<>();
        for (ShareFetchRequestData.FetchTopic t : data.topics()) {
            for (ShareFetchRequestData.FetchPartition p : t.partitions()) {
                SharePartitionKey key = new SharePartitionKey(groupId, t.topicId(), p.partitionIndex());
                named.add(key);
                if (!p.acknowledgementBatches().isEmpty()) {
                    List<SharePartitions.AckBatch> batches = new ArrayList<>();
                    p.acknowledgementBatches()
                            .forEach(b -> batches.add(new SharePartitions.AckBatch(
                                    b.firstOffset(), b.lastOffset(), b.acknowledgeTypes())));
                    acks.put(key, batches);
                }
            }
        }
        List<SharePartitionKey> forgotten = new ArrayList<>();
        data.forgottenTopicsData().forEach(t -> t.partitions()
                .forEach(p -> forgotten.add(new SharePartitionKey(groupId, t.topicId(), p))));
        int epoch = data.shareSessionEpoch();
        if (epoch == ShareSessions.OPEN_EPOCH && !acks.isEmpty()) {
            return done(
                    error(Errors.INVALID_REQUEST, "A request opening a share session carries no acknowledgements."));
        }
        ShareSessions.Step step = sessions.step(groupId, memberId, epoch, named, forgotten);
        if (step.error() != Errors.NONE) {
            return done(error(step.error(), null));
        }
        Response response = new Response(partitions.lockDurationMs(groupId));
        MetadataSnapshot snapshot = cache.snapshot();
        acks.forEach((key, batches) -> {
            PartitionData out = response.partition(key);
            try {
                Errors e = partitions.acknowledge(
                        key, ShareRequests.leaderLog(replicaManager, snapshot, key), memberId, batches);
                out.setAcknowledgeErrorCode(e.code());
            } catch (ApiException e) {
                ShareRequests.fillError(out, snapshot, key, e);
                out.setAcknowledgeErrorCode(Errors.forException(e).code());
            }
        });
        if (step.session() == null) {
            // the request closed the session: what the member still holds here becomes available to others
            partitions.releaseAll(memberId, step.closedPartitions());
            return done(response.data);
        }
        List<SharePartitionKey> toFetch = step.session().partitions();
        boolean any = fetchInto(response, snapshot, toFetch, memberId, data);
        if (any || !acks.isEmpty() || data.maxWaitMs() <= 0 || toFetch.isEmpty()) {
            return done(response.data);
        }
        CompletableFuture<ApiMessage> result = new CompletableFuture<>();
        List<TopicPartition> watched = new ArrayList<>();
        for (SharePartitionKey key : toFetch) {
            TopicPartition tp = ShareRequests.topicPartition(snapshot, key);
            if (tp != null) {
                watched.add(tp);
            }
        }
        replicaManager.fetchPurgatory().watch(watched, 1, data.maxWaitMs(), () -> !anyAcquirable(toFetch), () -> {
            try {
                Response again = new Response(partitions.lockDurationMs(groupId));
                fetchInto(again, cache.snapshot(), toFetch, memberId, data);
                result.complete(again.data);
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    private boolean anyAcquirable(List<SharePartitionKey> keys) {
        MetadataSnapshot snapshot = cache.snapshot();
        for (SharePartitionKey key : keys) {
            try {
                if (partitions.hasAcquirable(key, ShareRequests.leaderLog(replicaManager, snapshot, key))) {
                    return true;
                }
            } catch (ApiException e) {
                return true; // answer with the error now
            }
        }
        return false;
    }

    /** Acquires records of {@code keys} into {@code response}; true when it acquired any or found an error. */
    private boolean fetchInto(
            Response response,
            MetadataSnapshot snapshot,
            List<SharePartitionKey> keys,
            String memberId,
            ShareFetchRequestData data) {
        int recordsLeft = data.maxRecords() > 0 ? data.maxRecords() : DEFAULT_MAX_RECORDS;
        long bytesLeft = data.maxBytes() > 0 ? data.maxBytes() : Integer.MAX_VALUE;
        boolean any = false;
        for (SharePartitionKey key : keys) {
            if (recordsLeft <= 0 || bytesLeft <= 0) {
                break;
            }
            try {
                SharePartitions.Fetched f = partitions.fetch(
                        key, ShareRequests.leaderLog(replicaManager, snapshot, key), memberId, recordsLeft, (int)
                                Math.min(Integer.MAX_VALUE, bytesLeft));
                if (f.acquired().isEmpty()) {
                    continue;
                }
                any = true;
                PartitionData out = response.partition(key).setRecords(WireRecords.of(f.records()));
                for (var r : f.acquired()) {
                    out.acquiredRecords()
                            .add(new ShareFetchResponseData.AcquiredRecords()
                                    .setFirstOffset(r.firstOffset())
                                    .setLastOffset(r.lastOffset())
                                    .setDeliveryCount((short) r.deliveryCount()));
                    recordsLeft -= (int) (r.lastOffset() - r.firstOffset() + 1);
                }
                bytesLeft -= f.records().remaining();
            } catch (ApiException e) {
                any = true;
                ShareRequests.fillError(response.partition(key), snapshot, key, e);
            }
        }
        return any;
    }

    /** A response being built: one topic entry per topic id, partitions in request order. */
    private static final class Response {
        final ShareFetchResponseData data;
        final Map<SharePartitionKey, PartitionData> byKey = new LinkedHashMap<>();
        final Map<Uuid, ShareFetchableTopicResponse> topics = new LinkedHashMap<>();

        Response(int lockDurationMs) {
            data = new ShareFetchResponseData()
                    .setErrorCode(Errors.NONE.code())
                    .setAcquisitionLockTimeoutMs(lockDurationMs);
        }

        PartitionData partition(SharePartitionKey key) {
            return byKey.computeIfAbsent(key, k -> {
                ShareFetchableTopicResponse t = topics.computeIfAbsent(k.topicId(), id -> {
                    ShareFetchableTopicResponse created = new ShareFetchableTopicResponse().setTopicId(id);
                    data.responses().add(created);
                    return created;
                });
                PartitionData p = new PartitionData()
                        .setPartitionIndex(k.partition())
                        .setErrorCode(Errors.NONE.code())
                        .setAcknowledgeErrorCode(Errors.NONE.code())
                        .setRecords(WireRecords.empty());
                p.currentLeader().setLeaderId(-1).setLeaderEpoch(-1);
                t.partitions().add(p);
                return p;
            });
        }
    }

    private static ShareFetchResponseData error(Errors error, String message) {
        return new ShareFetchResponseData().setErrorCode(error.code()).setErrorMessage(message);
    }

    private static CompletableFuture<ApiMessage> done(ApiMessage m) {
        return CompletableFuture.completedFuture(m);
    }
}

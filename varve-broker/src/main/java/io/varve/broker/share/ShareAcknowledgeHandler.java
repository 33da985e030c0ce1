package io.varve.broker.share;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.replica.ReplicaManager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData.PartitionData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareAcknowledge (v1-2; v2 takes RENEW, KIP-1222): acknowledgements without a fetch, in an open share session, answered once they are written
 * at the share coordinator (epoch 0 cannot open one:
 * INVALID_SHARE_SESSION_EPOCH); epoch -1 closes the session after applying them and releases what the member still
 * holds. A record the member does not hold (never acquired, its lock expired, already acknowledged) gets
 * INVALID_RECORD_STATE for its partition.
 */
public final class ShareAcknowledgeHandler implements ApiHandler {
    private final MetadataCache cache;
    private final ReplicaManager replicaManager;
    private final ShareSessions sessions;
    private final SharePartitions partitions;

    public ShareAcknowledgeHandler(
            MetadataCache cache, ReplicaManager replicaManager, ShareSessions sessions, SharePartitions partitions) {
        this.cache = cache;
        this.replicaManager = replicaManager;
        this.sessions = sessions;
        this.partitions = partitions;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        ShareAcknowledgeRequestData data = request.body();
        String groupId = data.groupId();
        String memberId = data.memberId();
        if (groupId == null || groupId.isEmpty() || memberId == null || memberId.isEmpty()) {
            return done(error(Errors.INVALID_REQUEST, "GroupId and MemberId must be set."));
        }
        if (data.shareSessionEpoch() == ShareSessions.OPEN_EPOCH) {
            return done(error(Errors.INVALID_SHARE_SESSION_EPOCH, "ShareAcknowledge cannot open a share session."));
        }
        ShareSessions.Step step = sessions.step(groupId, memberId, data.shareSessionEpoch(), List.of(), List.of());
        if (step.error() != Errors.NONE) {
            return done(error(step.error(), null));
        }
        ShareAcknowledgeResponseData response = new ShareAcknowledgeResponseData()
                .setErrorCode(Errors.NONE.code())
                .setAcquisitionLockTimeoutMs(partitions.lockDurationMs()); // v2: a renewal's new lock
        Map<Uuid, ShareAcknowledgeTopicResponse> topics = new LinkedHashMap<>();
        MetadataSnapshot snapshot = cache.snapshot();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (ShareAcknowledgeRequestData.AcknowledgeTopic t : data.topics()) {
            for (ShareAcknowledgeRequestData.AcknowledgePartition p : t.partitions()) {
                SharePartitionKey key = new SharePartitionKey(groupId, t.topicId(), p.partitionIndex());
                List<SharePartitions.AckBatch> batches = new ArrayList<>();
                p.acknowledgementBatches()
                        .forEach(b -> batches.add(
                                new SharePartitions.AckBatch(b.firstOffset(), b.lastOffset(), b.acknowledgeTypes())));
                PartitionData out = new PartitionData().setPartitionIndex(p.partitionIndex());
                out.currentLeader().setLeaderId(-1).setLeaderEpoch(-1);
                try {
                    writes.add(partitions
                            .acknowledge(
                                    key,
                                    ShareRequests.leaderLog(replicaManager, snapshot, key),
                                    memberId,
                                    batches,
                                    request.apiVersion() >= 2)
                            .thenAccept(e -> out.setErrorCode(e.code())));
                } catch (ApiException e) {
                    Errors error = Errors.forException(e);
                    out.setErrorCode(error.code()).setErrorMessage(e.getMessage());
                    int[] leader = ShareRequests.leaderAndEpoch(snapshot, key);
                    if (leader != null && error == Errors.NOT_LEADER_OR_FOLLOWER) {
                        out.currentLeader().setLeaderId(leader[0]).setLeaderEpoch(leader[1]);
                    }
                }
                topics.computeIfAbsent(t.topicId(), id -> {
                            ShareAcknowledgeTopicResponse created = new ShareAcknowledgeTopicResponse().setTopicId(id);
                            response.responses().add(created);
                            return created;
                        })
                        .partitions()
                        .add(out);
            }
        }
        if (step.session() == null) {
            partitions.releaseAll(memberId, step.closedPartitions());
        }
        // answered once the acknowledgements are written at the share coordinator
        return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).thenApply(v -> response);
    }

    private static ShareAcknowledgeResponseData error(Errors error, String message) {
        return new ShareAcknowledgeResponseData().setErrorCode(error.code()).setErrorMessage(message);
    }

    private static CompletableFuture<ApiMessage> done(ApiMessage m) {
        return CompletableFuture.completedFuture(m);
    }
}

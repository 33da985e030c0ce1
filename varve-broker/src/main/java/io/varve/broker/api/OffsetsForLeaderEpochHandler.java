package io.varve.broker.api;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.replica.Partition;
import io.varve.broker.replica.ReplicaManager;
import io.varve.storage.epoch.EpochEndOffset;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetsForLeaderEpoch (KIP-101, KIP-320): where a leader epoch ends in the leader's log, for a follower finding
 * the point its history diverged and for a consumer checking its position after a leader change. Answered by the
 * leader only; the caller's current leader epoch is checked first (FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH).
 */
public final class OffsetsForLeaderEpochHandler implements ApiHandler {
    private final MetadataCache cache;
    private final ReplicaManager replicaManager;

    public OffsetsForLeaderEpochHandler(MetadataCache cache, ReplicaManager replicaManager) {
        this.cache = cache;
        this.replicaManager = replicaManager;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        OffsetForLeaderEpochRequestData data = request.body();
        MetadataSnapshot snapshot = cache.snapshot();
        OffsetForLeaderEpochResponseData response = new OffsetForLeaderEpochResponseData();
        for (OffsetForLeaderTopic topic : data.topics()) {
            OffsetForLeaderTopicResult result = new OffsetForLeaderTopicResult().setTopic(topic.topic());
            for (OffsetForLeaderPartition p : topic.partitions()) {
                OffsetForLeaderEpochResponseData.EpochEndOffset out =
                        new OffsetForLeaderEpochResponseData.EpochEndOffset()
                                .setPartition(p.partition())
                                .setLeaderEpoch(EpochEndOffset.UNDEFINED_EPOCH)
                                .setEndOffset(EpochEndOffset.UNDEFINED_OFFSET);
                try {
                    Partition partition =
                            replicaManager.leaderPartition(snapshot, new TopicPartition(topic.topic(), p.partition()));
                    partition.checkLeaderEpoch(p.currentLeaderEpoch());
                    EpochEndOffset end = partition.endOffsetForEpoch(p.leaderEpoch());
                    out.setErrorCode(Errors.NONE.code())
                            .setLeaderEpoch(end.leaderEpoch())
                            .setEndOffset(end.endOffset());
                } catch (ApiException e) {
                    out.setErrorCode(Errors.forException(e).code());
                }
                result.partitions().add(out);
            }
            response.topics().add(result);
        }
        return CompletableFuture.completedFuture(response);
    }
}

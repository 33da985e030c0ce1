package io.varve.broker.share.coordinator;

import io.varve.broker.api.ApiRegistry;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.coordinator.share.RecordState;
import io.varve.coordinator.share.SharePartition;
import io.varve.coordinator.share.ShareStateRecords;
import io.varve.coordinator.share.ShareStateShard;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.DeleteShareGroupStateResponseData;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The share coordinator's APIs (KIP-932), which share-partition leaders call over the inter-broker listener:
 * InitializeShareGroupState v0, ReadShareGroupState v0, WriteShareGroupState v0-1, DeleteShareGroupState v0 and
 * ReadShareGroupStateSummary v0-1. Each partition of a request is one key, answered on its own (a request may name
 * keys of several coordinators: each gets its own error). A topic id or partition the metadata does not know gets
 * UNKNOWN_TOPIC_OR_PARTITION (except on delete, which may clean up after a deleted topic). The authorization hook
 * requires CLUSTER_ACTION for all of them, as Kafka does. The methods taking request data are also what this broker's
 * own share-partition leader calls, without a socket, when it coordinates the key itself.
 */
public final class ShareStateApis {
    private final ShareCoordinatorService service;
    private final MetadataCache cache;

    public ShareStateApis(ShareCoordinatorService service, MetadataCache cache) {
        this.service = service;
        this.cache = cache;
    }

    public void register(ApiRegistry registry) {
        registry.register(ApiKeys.INITIALIZE_SHARE_GROUP_STATE, 0, 0, r -> initialize(r.body())
                        .thenApply(m -> m))
                .register(ApiKeys.READ_SHARE_GROUP_STATE, 0, 0, r -> read(r.body())
                        .thenApply(m -> m))
                .register(ApiKeys.WRITE_SHARE_GROUP_STATE, 0, 1, r -> write(r.body())
                        .thenApply(m -> m))
                .register(ApiKeys.DELETE_SHARE_GROUP_STATE, 0, 0, r -> delete(r.body())
                        .thenApply(m -> m))
                .register(ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY, 0, 1, r -> summary(r.body())
                        .thenApply(m -> m));
    }

    public CompletableFuture<InitializeShareGroupStateResponseData> initialize(InitializeShareGroupStateRequestData d) {
        InitializeShareGroupStateResponseData out = new InitializeShareGroupStateResponseData();
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (var t : d.topics()) {
            var topic = new InitializeShareGroupStateResponseData.InitializeStateResult().setTopicId(t.topicId());
            out.results().add(topic);
            for (var p : t.partitions()) {
                var result = new InitializeShareGroupStateResponseData.PartitionResult().setPartition(p.partition());
                topic.partitions().add(result);
                all.add(each(
                                d.groupId(),
                                t.topicId(),
                                p.partition(),
                                true,
                                (shard, key) -> shard.initialize(key, p.stateEpoch(), p.startOffset()))
                        .thenAccept(o -> result.setErrorCode(o.error().code()).setErrorMessage(o.message())));
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).thenApply(v -> out);
    }

    public CompletableFuture<ReadShareGroupStateResponseData> read(ReadShareGroupStateRequestData d) {
        ReadShareGroupStateResponseData out = new ReadShareGroupStateResponseData();
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (var t : d.topics()) {
            var topic = new ReadShareGroupStateResponseData.ReadStateResult().setTopicId(t.topicId());
            out.results().add(topic);
            for (var p : t.partitions()) {
                var result = new ReadShareGroupStateResponseData.PartitionResult()
                        .setPartition(p.partition())
                        .setStateEpoch(0)
                        .setStartOffset(ShareStateShard.UNINITIALIZED_START_OFFSET);
                topic.partitions().add(result);
                all.add(each(
                                d.groupId(),
                                t.topicId(),
                                p.partition(),
                                true,
                                (shard, key) -> shard.read(key, p.leaderEpoch()))
                        .thenAccept(o -> {
                            result.setErrorCode(o.error().code()).setErrorMessage(o.message());
                            if (o.ok()) {
                                result.setStateEpoch(o.state().stateEpoch())
                                        .setStartOffset(o.state().snapshot().startOffset());
                                for (SharePartition.StateBatch b :
                                        o.state().snapshot().batches()) {
                                    result.stateBatches()
                                            .add(new ReadShareGroupStateResponseData.StateBatch()
                                                    .setFirstOffset(b.firstOffset())
                                                    .setLastOffset(b.lastOffset())
                                                    .setDeliveryState(b.state().code())
                                                    .setDeliveryCount((short) b.deliveryCount()));
                                }
                            }
                        }));
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).thenApply(v -> out);
    }

    public CompletableFuture<WriteShareGroupStateResponseData> write(WriteShareGroupStateRequestData d) {
        WriteShareGroupStateResponseData out = new WriteShareGroupStateResponseData();
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (var t : d.topics()) {
            var topic = new WriteShareGroupStateResponseData.WriteStateResult().setTopicId(t.topicId());
            out.results().add(topic);
            for (var p : t.partitions()) {
                var result = new WriteShareGroupStateResponseData.PartitionResult().setPartition(p.partition());
                topic.partitions().add(result);
                List<SharePartition.StateBatch> batches = new ArrayList<>();
                Errors badState = Errors.NONE;
                for (var b : p.stateBatches()) {
                    RecordState state = stateOf(b.deliveryState());
                    if (state == null) {
                        badState = Errors.INVALID_REQUEST;
                        break;
                    }
                    batches.add(
                            new SharePartition.StateBatch(b.firstOffset(), b.lastOffset(), state, b.deliveryCount()));
                }
                if (badState != Errors.NONE) {
                    result.setErrorCode(badState.code())
                            .setErrorMessage("A state batch has an unknown delivery state.");
                    continue;
                }
                all.add(each(
                                d.groupId(),
                                t.topicId(),
                                p.partition(),
                                true,
                                (shard, key) ->
                                        shard.write(key, p.stateEpoch(), p.leaderEpoch(), p.startOffset(), batches))
                        .thenAccept(o -> result.setErrorCode(o.error().code()).setErrorMessage(o.message())));
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).thenApply(v -> out);
    }

    public CompletableFuture<DeleteShareGroupStateResponseData> delete(DeleteShareGroupStateRequestData d) {
        DeleteShareGroupStateResponseData out = new DeleteShareGroupStateResponseData();
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (var t : d.topics()) {
            var topic = new DeleteShareGroupStateResponseData.DeleteStateResult().setTopicId(t.topicId());
            out.results().add(topic);
            for (var p : t.partitions()) {
                var result = new DeleteShareGroupStateResponseData.PartitionResult().setPartition(p.partition());
                topic.partitions().add(result);
                all.add(each(d.groupId(), t.topicId(), p.partition(), false, ShareStateShard::delete)
                        .thenAccept(o -> result.setErrorCode(o.error().code()).setErrorMessage(o.message())));
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).thenApply(v -> out);
    }

    public CompletableFuture<ReadShareGroupStateSummaryResponseData> summary(ReadShareGroupStateSummaryRequestData d) {
        ReadShareGroupStateSummaryResponseData out = new ReadShareGroupStateSummaryResponseData();
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (var t : d.topics()) {
            var topic = new ReadShareGroupStateSummaryResponseData.ReadStateSummaryResult().setTopicId(t.topicId());
            out.results().add(topic);
            for (var p : t.partitions()) {
                var result = new ReadShareGroupStateSummaryResponseData.PartitionResult()
                        .setPartition(p.partition())
                        .setStateEpoch(0)
                        .setLeaderEpoch(-1)
                        .setStartOffset(ShareStateShard.UNINITIALIZED_START_OFFSET);
                topic.partitions().add(result);
                all.add(each(
                                d.groupId(),
                                t.topicId(),
                                p.partition(),
                                true,
                                (shard, key) -> shard.summary(key, p.leaderEpoch()))
                        .thenAccept(o -> {
                            result.setErrorCode(o.error().code()).setErrorMessage(o.message());
                            if (o.ok()) {
                                result.setStateEpoch(o.state().stateEpoch())
                                        .setLeaderEpoch(o.state().leaderEpoch())
                                        .setStartOffset(o.state().snapshot().startOffset())
                                        .setDeliveryCompleteCount(ShareStateShard.deliveryCompleteCount(
                                                o.state().snapshot()));
                            }
                        }));
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).thenApply(v -> out);
    }

    /** One key's operation, after the checks every API shares. */
    private CompletableFuture<ShareStateShard.Outcome> each(
            String groupId,
            Uuid topicId,
            int partition,
            boolean topicMustExist,
            BiFunction<ShareStateShard, ShareStateRecords.Key, ShareStateShard.Outcome> operation) {
        ShareStateRecords.Key key = new ShareStateRecords.Key(groupId, topicId, partition);
        if (groupId == null || groupId.isEmpty() || topicId == null || partition < 0) {
            // the shard says which, without a coordinator lookup of a key that cannot be hashed
            return CompletableFuture.completedFuture(operation.apply(new ShareStateShard(), key));
        }
        if (topicMustExist) {
            MetadataSnapshot.TopicInfo info = cache.snapshot().topicsById().get(topicId);
            if (info == null || !info.partitions().containsKey(partition)) {
                return CompletableFuture.completedFuture(ShareStateShard.Outcome.failure(
                        Errors.UNKNOWN_TOPIC_OR_PARTITION,
                        "Topic id " + topicId + " has no partition " + partition + "."));
            }
        }
        return service.run(key, shard -> operation.apply(shard, key));
    }

    private static RecordState stateOf(byte code) {
        // 0 Available, 2 Acked, 4 Archived on the wire; Acquired (1) is never persisted
        return code == RecordState.AVAILABLE.code()
                        || code == RecordState.ACKNOWLEDGED.code()
                        || code == RecordState.ARCHIVED.code()
                ? RecordState.ofCode(code)
                : null;
    }
}

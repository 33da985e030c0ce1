package io.varve.broker.share;

import io.varve.broker.group.GroupCoordinatorRuntime;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.replica.ReplicaManager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeShareGroupOffsets (v0-1), AlterShareGroupOffsets (v0) and DeleteShareGroupOffsets (v0), behind {@code
 * kafka-share-groups --describe / --reset-offsets / --delete-offsets}. The group's coordinator answers them through
 * the share-partition states of this broker (which read and write the share coordinator), so they see a partition
 * only where the group coordinator also leads it; a describe of a partition led elsewhere takes the start offset from
 * the share coordinator's summary (ReadShareGroupStateSummary, as Kafka's group coordinator does) with lag -1, and
 * altering offsets there gets NOT_LEADER_OR_FOLLOWER.
 * Altering or deleting needs the group empty (NON_EMPTY_GROUP), or absent: altering offsets of a group that does
 * not exist yet sets where it will start.
 */
final class ShareGroupAdminHandlers {
    private final MetadataCache cache;
    private final ReplicaManager replicaManager;
    private final GroupCoordinatorRuntime groups;
    private final SharePartitions partitions;

    ShareGroupAdminHandlers(
            MetadataCache cache,
            ReplicaManager replicaManager,
            GroupCoordinatorRuntime groups,
            SharePartitions partitions) {
        this.cache = cache;
        this.replicaManager = replicaManager;
        this.groups = groups;
        this.partitions = partitions;
    }

    CompletableFuture<ApiMessage> describe(RequestContext request) {
        DescribeShareGroupOffsetsRequestData data = request.body();
        MetadataSnapshot snapshot = cache.snapshot();
        DescribeShareGroupOffsetsResponseData response = new DescribeShareGroupOffsetsResponseData();
        for (var g : data.groups()) {
            var out = new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup()
                    .setGroupId(g.groupId());
            response.groups().add(out);
            // topic name → partitions asked (all those with a state when the request names no topics)
            Map<String, List<Integer>> asked = new TreeMap<>();
            if (g.topics() == null) {
                for (SharePartitionKey key : partitions.keysOf(g.groupId())) {
                    MetadataSnapshot.TopicInfo info = snapshot.topicsById().get(key.topicId());
                    if (info != null) {
                        asked.computeIfAbsent(info.name(), n -> new ArrayList<>())
                                .add(key.partition());
                    }
                }
                asked.values().forEach(l -> l.sort(Integer::compare));
            } else {
                g.topics().forEach(t -> asked.put(t.topicName(), t.partitions()));
            }
            asked.forEach((name, ps) -> {
                MetadataSnapshot.TopicInfo info = snapshot.topicsByName().get(name);
                var topic = new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic()
                        .setTopicName(name)
                        .setTopicId(info == null ? Uuid.ZERO_UUID : info.id());
                out.topics().add(topic);
                for (int partition : ps) {
                    var p = new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition()
                            .setPartitionIndex(partition)
                            .setStartOffset(-1)
                            .setLeaderEpoch(-1)
                            .setLag(-1);
                    topic.partitions().add(p);
                    if (info == null || !info.partitions().containsKey(partition)) {
                        p.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                                .setErrorMessage("The topic-partition is unknown.");
                        continue;
                    }
                    SharePartitionKey key = new SharePartitionKey(g.groupId(), info.id(), partition);
                    try {
                        SharePartitions.Offsets o;
                        try {
                            o = partitions.offsets(key, ShareRequests.leaderLog(replicaManager, snapshot, key));
                        } catch (org.apache.kafka.common.errors.NotLeaderOrFollowerException e) {
                            // led elsewhere: the share coordinator's summary has the start offset, not the lag
                            o = partitions.offsetsFromCoordinator(key);
                        }
                        p.setStartOffset(o.startOffset())
                                .setLag(o.lag())
                                .setLeaderEpoch(info.partitions().get(partition).leaderEpoch());
                    } catch (ApiException e) {
                        p.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
                    }
                }
            });
        }
        return CompletableFuture.completedFuture(response);
    }

    CompletableFuture<ApiMessage> alter(RequestContext request) {
        AlterShareGroupOffsetsRequestData data = request.body();
        return changeable(data.groupId()).thenApply(error -> {
            AlterShareGroupOffsetsResponseData response = new AlterShareGroupOffsetsResponseData();
            if (error != Errors.NONE) {
                return response.setErrorCode(error.code()).setErrorMessage(message(data.groupId(), error));
            }
            MetadataSnapshot snapshot = cache.snapshot();
            for (var t : data.topics()) {
                MetadataSnapshot.TopicInfo info = snapshot.topicsByName().get(t.topicName());
                var topic = new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic()
                        .setTopicName(t.topicName())
                        .setTopicId(info == null ? Uuid.ZERO_UUID : info.id());
                response.responses().add(topic);
                for (var p : t.partitions()) {
                    var out = new AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponsePartition()
                            .setPartitionIndex(p.partitionIndex());
                    topic.partitions().add(out);
                    if (info == null || !info.partitions().containsKey(p.partitionIndex())) {
                        out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                        continue;
                    }
                    if (p.startOffset() < 0) {
                        out.setErrorCode(Errors.INVALID_REQUEST.code())
                                .setErrorMessage("The start offset must not be negative.");
                        continue;
                    }
                    SharePartitionKey key = new SharePartitionKey(data.groupId(), info.id(), p.partitionIndex());
                    try {
                        ShareRequests.leaderLog(replicaManager, snapshot, key);
                        partitions.resetStartOffset(key, p.startOffset());
                        out.setErrorCode(Errors.NONE.code());
                    } catch (ApiException e) {
                        out.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
                    }
                }
            }
            return response;
        });
    }

    CompletableFuture<ApiMessage> delete(RequestContext request) {
        DeleteShareGroupOffsetsRequestData data = request.body();
        return changeable(data.groupId()).thenApply(error -> {
            DeleteShareGroupOffsetsResponseData response = new DeleteShareGroupOffsetsResponseData();
            if (error != Errors.NONE) {
                return response.setErrorCode(error.code()).setErrorMessage(message(data.groupId(), error));
            }
            MetadataSnapshot snapshot = cache.snapshot();
            Map<Uuid, List<SharePartitionKey>> byTopic = new LinkedHashMap<>();
            partitions.keysOf(data.groupId()).forEach(k -> byTopic.computeIfAbsent(k.topicId(), id -> new ArrayList<>())
                    .add(k));
            for (var t : data.topics()) {
                MetadataSnapshot.TopicInfo info = snapshot.topicsByName().get(t.topicName());
                var out = new DeleteShareGroupOffsetsResponseData.DeleteShareGroupOffsetsResponseTopic()
                        .setTopicName(t.topicName())
                        .setTopicId(info == null ? Uuid.ZERO_UUID : info.id());
                response.responses().add(out);
                if (info == null) {
                    out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setErrorMessage("The topic is unknown.");
                    continue;
                }
                byTopic.getOrDefault(info.id(), List.of()).forEach(partitions::delete);
                out.setErrorCode(Errors.NONE.code());
            }
            return response;
        });
    }

    private CompletableFuture<Errors> changeable(String groupId) {
        return groups.run(groupId, shard -> shard.shareGroupOffsetsChangeable(groupId))
                .exceptionally(GroupCoordinatorRuntime::errorOf);
    }

    private static String message(String groupId, Errors error) {
        return error == Errors.NON_EMPTY_GROUP
                ? "The share group " + groupId + " has members: its offsets can only change while it is empty."
                : error == Errors.GROUP_ID_NOT_FOUND ? "Group " + groupId + " is not a share group." : error.message();
    }
}

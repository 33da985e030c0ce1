package io.varve.broker.group;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.protocol.RequestContext;
import io.varve.coordinator.group.offset.OffsetApi;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetCommit (v2-10), OffsetFetch (v1-10, several groups from v8) and OffsetDelete (v0). From version 10 both name
 * topics by id only: an id is resolved through the metadata snapshot of the moment (an unknown one answers
 * UNKNOWN_TOPIC_ID for each of its partitions) and the answer carries ids again; offsets are still kept by name.
 */
final class OffsetHandlers {
    private static final short FIRST_MULTI_GROUP_FETCH_VERSION = 8;
    private static final short FIRST_CONSUMER_PROTOCOL_VERSION = 9;
    static final short FIRST_TOPIC_ID_VERSION = 10;

    private final GroupCoordinatorRuntime runtime;
    private final MetadataCache cache;

    OffsetHandlers(GroupCoordinatorRuntime runtime, MetadataCache cache) {
        this.runtime = runtime;
        this.cache = cache;
    }

    static boolean exists(MetadataSnapshot snapshot, TopicPartition tp) {
        TopicInfo topic = snapshot.topicsByName().get(tp.topic());
        return topic != null && topic.partitions().containsKey(tp.partition());
    }

    /**
     * Fills a commit's per-partition errors: each partition's result from the shard, or, when the whole commit
     * failed, the failure for every partition that had no error of its own yet.
     */
    static void recordResults(
            Map<TopicPartition, Errors> errors, List<OffsetApi.PartitionResult> results, Throwable e) {
        if (e != null) {
            Errors error = GroupCoordinatorRuntime.errorOf(e);
            errors.replaceAll((tp, existing) -> existing == null ? error : existing);
        } else {
            results.forEach(r -> errors.put(r.partition(), r.error()));
        }
    }

    // ---------------------------------------------------------------- OffsetCommit

    CompletableFuture<ApiMessage> commit(RequestContext request) {
        OffsetCommitRequestData data = request.body();
        short version = request.apiVersion();
        MetadataSnapshot snapshot = cache.snapshot();
        boolean byId = version >= FIRST_TOPIC_ID_VERSION;
        Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
        List<OffsetApi.CommitPartition> partitions = new ArrayList<>();
        List<OffsetCommitResponseTopic> unknownIds = new ArrayList<>();
        for (OffsetCommitRequestTopic t : data.topics()) {
            String name = t.name();
            if (byId) {
                TopicInfo topic = snapshot.topicsById().get(t.topicId());
                if (topic == null) {
                    OffsetCommitResponseTopic unknown = new OffsetCommitResponseTopic().setTopicId(t.topicId());
                    t.partitions().forEach(p -> unknown.partitions()
                            .add(new OffsetCommitResponsePartition()
                                    .setPartitionIndex(p.partitionIndex())
                                    .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())));
                    unknownIds.add(unknown);
                    continue;
                }
                name = topic.name();
            }
            for (OffsetCommitRequestPartition p : t.partitions()) {
                TopicPartition tp = new TopicPartition(name, p.partitionIndex());
                if (exists(snapshot, tp)) {
                    partitions.add(new OffsetApi.CommitPartition(
                            tp,
                            p.committedOffset(),
                            version >= 6 ? p.committedLeaderEpoch() : -1,
                            p.committedMetadata()));
                    errors.put(tp, null);
                } else {
                    errors.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
        }
        OffsetApi.CommitRequest commit = new OffsetApi.CommitRequest(
                data.groupId(),
                data.generationIdOrMemberEpoch(),
                data.memberId(),
                version >= 7 ? data.groupInstanceId() : null,
                version <= 4 ? data.retentionTimeMs() : -1,
                partitions,
                version >= FIRST_CONSUMER_PROTOCOL_VERSION);
        CompletableFuture<List<OffsetApi.PartitionResult>> result = partitions.isEmpty()
                ? CompletableFuture.completedFuture(List.of())
                : runtime.run(data.groupId(), shard -> shard.commitOffsets(commit));
        return result.handle((results, e) -> {
            recordResults(errors, results, e);
            OffsetCommitResponseData response = new OffsetCommitResponseData();
            Map<String, OffsetCommitResponseTopic> topics = new LinkedHashMap<>();
            errors.forEach((tp, error) -> topics.computeIfAbsent(tp.topic(), n -> {
                        OffsetCommitResponseTopic topic = byId
                                ? new OffsetCommitResponseTopic()
                                        .setTopicId(
                                                snapshot.topicsByName().get(n).id())
                                : new OffsetCommitResponseTopic().setName(n);
                        response.topics().add(topic);
                        return topic;
                    })
                    .partitions()
                    .add(new OffsetCommitResponsePartition()
                            .setPartitionIndex(tp.partition())
                            .setErrorCode(error.code())));
            response.topics().addAll(unknownIds);
            return response;
        });
    }

    // ---------------------------------------------------------------- OffsetFetch

    /**
     * One group of a fetch: its partitions (null for all), the KIP-848 member identity when given, and (version 10)
     * the requested topic ids the snapshot does not know, with their partitions.
     */
    private record GroupFetch(
            String groupId,
            String memberId,
            int memberEpoch,
            List<TopicPartition> partitions,
            Map<Uuid, List<Integer>> unknownIds) {}

    CompletableFuture<ApiMessage> fetch(RequestContext request) {
        OffsetFetchRequestData data = request.body();
        short version = request.apiVersion();
        boolean byId = version >= FIRST_TOPIC_ID_VERSION;
        MetadataSnapshot snapshot = cache.snapshot();
        List<GroupFetch> groups = new ArrayList<>();
        if (version >= FIRST_MULTI_GROUP_FETCH_VERSION) {
            for (OffsetFetchRequestGroup g : data.groups()) {
                List<TopicPartition> tps = null;
                Map<Uuid, List<Integer>> unknownIds = new LinkedHashMap<>();
                if (g.topics() != null) {
                    tps = new ArrayList<>();
                    for (OffsetFetchRequestTopics t : g.topics()) {
                        String name = t.name();
                        if (byId) {
                            TopicInfo topic = snapshot.topicsById().get(t.topicId());
                            if (topic == null) {
                                unknownIds.put(t.topicId(), t.partitionIndexes());
                                continue;
                            }
                            name = topic.name();
                        }
                        for (int p : t.partitionIndexes()) {
                            tps.add(new TopicPartition(name, p));
                        }
                    }
                }
                boolean member = version >= FIRST_CONSUMER_PROTOCOL_VERSION;
                groups.add(new GroupFetch(
                        g.groupId(), member ? g.memberId() : null, member ? g.memberEpoch() : -1, tps, unknownIds));
            }
        } else {
            List<TopicPartition> tps = null;
            if (data.topics() != null) {
                tps = new ArrayList<>();
                for (OffsetFetchRequestTopic t : data.topics()) {
                    for (int p : t.partitionIndexes()) {
                        tps.add(new TopicPartition(t.name(), p));
                    }
                }
            }
            groups.add(new GroupFetch(data.groupId(), null, -1, tps, Map.of()));
        }
        boolean requireStable = version >= 7 && data.requireStable();
        List<CompletableFuture<OffsetApi.FetchResponse>> futures = new ArrayList<>();
        for (GroupFetch g : groups) {
            OffsetApi.FetchRequest fetch =
                    new OffsetApi.FetchRequest(g.groupId, g.memberId, g.memberEpoch, g.partitions, requireStable);
            futures.add(runtime.run(g.groupId, shard -> shard.fetchOffsets(fetch))
                    .exceptionally(e -> new OffsetApi.FetchResponse(GroupCoordinatorRuntime.errorOf(e), List.of())));
        }
        return CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> {
                    OffsetFetchResponseData response = new OffsetFetchResponseData();
                    if (version >= FIRST_MULTI_GROUP_FETCH_VERSION) {
                        for (int i = 0; i < groups.size(); i++) {
                            response.groups()
                                    .add(group(groups.get(i), futures.get(i).join(), byId ? snapshot : null));
                        }
                        return response;
                    }
                    OffsetApi.FetchResponse r = futures.get(0).join();
                    if (r.error() != Errors.NONE) {
                        response.setErrorCode(r.error().code());
                        // Version 1 has no group-level error: every requested partition carries it.
                        if (version < 2 && groups.get(0).partitions != null) {
                            for (TopicPartition tp : groups.get(0).partitions) {
                                legacyTopic(response, tp.topic())
                                        .partitions()
                                        .add(new OffsetFetchResponsePartition()
                                                .setPartitionIndex(tp.partition())
                                                .setCommittedOffset(-1)
                                                .setMetadata("")
                                                .setErrorCode(r.error().code()));
                            }
                        }
                        return response;
                    }
                    for (OffsetApi.FetchedOffset o : r.offsets()) {
                        legacyTopic(response, o.partition().topic())
                                .partitions()
                                .add(new OffsetFetchResponsePartition()
                                        .setPartitionIndex(o.partition().partition())
                                        .setCommittedOffset(o.offset())
                                        .setCommittedLeaderEpoch(o.leaderEpoch())
                                        .setMetadata(o.metadata())
                                        .setErrorCode(o.error().code()));
                    }
                    return response;
                });
    }

    private static OffsetFetchResponseTopic legacyTopic(OffsetFetchResponseData response, String name) {
        for (OffsetFetchResponseTopic t : response.topics()) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        OffsetFetchResponseTopic t = new OffsetFetchResponseTopic().setName(name);
        response.topics().add(t);
        return t;
    }

    /**
     * One group's answer; with {@code idsFrom} (version 10) topics are named by their id in that snapshot, and a topic
     * it no longer knows (offsets of a deleted topic, in a fetch of all) is left out: there is no id to name it by.
     */
    private static OffsetFetchResponseGroup group(
            GroupFetch request, OffsetApi.FetchResponse r, MetadataSnapshot idsFrom) {
        OffsetFetchResponseGroup group = new OffsetFetchResponseGroup()
                .setGroupId(request.groupId)
                .setErrorCode(r.error().code());
        Map<String, OffsetFetchResponseTopics> topics = new HashMap<>();
        for (OffsetApi.FetchedOffset o : r.offsets()) {
            TopicInfo known = idsFrom == null
                    ? null
                    : idsFrom.topicsByName().get(o.partition().topic());
            if (idsFrom != null && known == null) {
                continue;
            }
            topics.computeIfAbsent(o.partition().topic(), n -> {
                        OffsetFetchResponseTopics t = known != null
                                ? new OffsetFetchResponseTopics().setTopicId(known.id())
                                : new OffsetFetchResponseTopics().setName(n);
                        group.topics().add(t);
                        return t;
                    })
                    .partitions()
                    .add(new OffsetFetchResponsePartitions()
                            .setPartitionIndex(o.partition().partition())
                            .setCommittedOffset(o.offset())
                            .setCommittedLeaderEpoch(o.leaderEpoch())
                            .setMetadata(o.metadata())
                            .setErrorCode(o.error().code()));
        }
        if (r.error() != Errors.NONE) {
            return group; // a group-level error stands for every partition
        }
        request.unknownIds.forEach((id, partitions) -> {
            OffsetFetchResponseTopics t = new OffsetFetchResponseTopics().setTopicId(id);
            partitions.forEach(p -> t.partitions()
                    .add(new OffsetFetchResponsePartitions()
                            .setPartitionIndex(p)
                            .setCommittedOffset(-1)
                            .setCommittedLeaderEpoch(-1)
                            .setMetadata("")
                            .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())));
            group.topics().add(t);
        });
        return group;
    }

    // ---------------------------------------------------------------- OffsetDelete

    CompletableFuture<ApiMessage> delete(RequestContext request) {
        OffsetDeleteRequestData data = request.body();
        MetadataSnapshot snapshot = cache.snapshot();
        Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
        List<TopicPartition> known = new ArrayList<>();
        for (OffsetDeleteRequestTopic t : data.topics()) {
            for (OffsetDeleteRequestPartition p : t.partitions()) {
                TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
                if (exists(snapshot, tp)) {
                    known.add(tp);
                    errors.put(tp, null);
                } else {
                    errors.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
        }
        return runtime.run(data.groupId(), shard -> shard.deleteOffsets(data.groupId(), known))
                .handle((r, e) -> {
                    OffsetDeleteResponseData response = new OffsetDeleteResponseData();
                    Errors groupError = e != null ? GroupCoordinatorRuntime.errorOf(e) : r.error();
                    if (groupError != Errors.NONE) {
                        return response.setErrorCode(groupError.code());
                    }
                    r.partitions().forEach(p -> errors.put(p.partition(), p.error()));
                    errors.forEach((tp, error) -> {
                        OffsetDeleteResponseTopic topic = response.topics().find(tp.topic());
                        if (topic == null) {
                            topic = new OffsetDeleteResponseTopic().setName(tp.topic());
                            response.topics().add(topic);
                        }
                        topic.partitions()
                                .add(new OffsetDeleteResponsePartition()
                                        .setPartitionIndex(tp.partition())
                                        .setErrorCode(error.code()));
                    });
                    return response;
                });
    }
}

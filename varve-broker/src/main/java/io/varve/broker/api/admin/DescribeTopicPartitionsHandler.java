package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.image.TopicImage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData.TopicRequest;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.Cursor;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeTopicPartitions (KIP-966): topics with their partitions' leader, replicas, ISR, eligible leader
 * replicas, last known ELR and offline replicas, from this broker's metadata image. Topics in name order (all
 * topics when none are named), at most {@code ResponsePartitionLimit} partitions per answer (capped at
 * {@link #MAX_PARTITIONS}); the cursor names where the next answer starts.
 */
public final class DescribeTopicPartitionsHandler implements ApiHandler {
    /** Kafka's {@code max.request.partition.size.limit} default: the most partitions one answer holds. */
    public static final int MAX_PARTITIONS = 2000;

    private static final int NO_AUTHORIZED_OPERATIONS = Integer.MIN_VALUE;

    private final Supplier<MetadataImage> image;

    public DescribeTopicPartitionsHandler(Supplier<MetadataImage> image) {
        this.image = image;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        DescribeTopicPartitionsRequestData data = request.body();
        MetadataImage metadata = image.get();
        TreeSet<String> names = new TreeSet<>();
        if (data.topics().isEmpty()) {
            names.addAll(metadata.topics().topicsByName().keySet());
        } else {
            data.topics().stream().map(TopicRequest::name).forEach(names::add);
        }
        DescribeTopicPartitionsRequestData.Cursor cursor = data.cursor();
        if (cursor != null) {
            names = new TreeSet<>(names.tailSet(cursor.topicName(), true));
        }
        int limit = data.responsePartitionLimit() <= 0
                ? MAX_PARTITIONS
                : Math.min(MAX_PARTITIONS, data.responsePartitionLimit());
        DescribeTopicPartitionsResponseData response = new DescribeTopicPartitionsResponseData();
        int budget = limit;
        for (String name : names) {
            TopicImage topic = metadata.topics().getTopic(name);
            if (topic == null) {
                response.topics()
                        .add(new DescribeTopicPartitionsResponseTopic()
                                .setName(name)
                                .setTopicId(Uuid.ZERO_UUID)
                                .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                                .setTopicAuthorizedOperations(NO_AUTHORIZED_OPERATIONS));
                continue;
            }
            int first = cursor != null && cursor.topicName().equals(name) ? cursor.partitionIndex() : 0;
            DescribeTopicPartitionsResponseTopic out = new DescribeTopicPartitionsResponseTopic()
                    .setName(name)
                    .setTopicId(topic.id())
                    .setIsInternal(io.varve.broker.metadata.MetadataSnapshot.INTERNAL_TOPICS.contains(name))
                    .setErrorCode(Errors.NONE.code())
                    .setTopicAuthorizedOperations(NO_AUTHORIZED_OPERATIONS);
            response.topics().add(out);
            for (var entry :
                    new TreeMap<>(topic.partitions()).tailMap(first, true).entrySet()) {
                if (budget == 0) {
                    response.setNextCursor(new Cursor().setTopicName(name).setPartitionIndex(entry.getKey()));
                    return CompletableFuture.completedFuture(response);
                }
                out.partitions().add(partition(metadata, entry.getKey(), entry.getValue()));
                budget--;
            }
        }
        return CompletableFuture.completedFuture(response);
    }

    private static DescribeTopicPartitionsResponsePartition partition(
            MetadataImage metadata, int partitionId, PartitionImage p) {
        List<Integer> offline = new ArrayList<>();
        for (int replica : p.replicas()) {
            if (metadata.cluster().broker(replica) == null
                    || metadata.cluster().broker(replica).fenced()) {
                offline.add(replica);
            }
        }
        return new DescribeTopicPartitionsResponsePartition()
                .setPartitionIndex(partitionId)
                .setErrorCode(Errors.NONE.code())
                .setLeaderId(p.leader())
                .setLeaderEpoch(p.leaderEpoch())
                .setReplicaNodes(list(p.replicas()))
                .setIsrNodes(list(p.isr()))
                .setEligibleLeaderReplicas(list(p.elr()))
                .setLastKnownElr(list(p.lastKnownElr()))
                .setOfflineReplicas(offline);
    }

    private static List<Integer> list(int[] ids) {
        return new ArrayList<>(Arrays.stream(ids).boxed().toList());
    }
}

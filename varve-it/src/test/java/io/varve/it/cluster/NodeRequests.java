package io.varve.it.cluster;

import static org.awaitility.Awaitility.await;

import io.varve.it.RawClient;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * One request to one node of a cluster, each over a fresh connection with a short timeout, so that a paused or
 * isolated node stalls only the caller that asked it: DescribeQuorum (that node's view of the quorum), Metadata
 * (its topics, brokers, partition leaders) and CreateTopics sent to that node itself, not routed by a client.
 */
public final class NodeRequests {
    /** How long one request may take: a paused node must not stall a poll. */
    public static final Duration QUERY_TIMEOUT = Duration.ofMillis(1500);

    private static final short DESCRIBE_QUORUM_VERSION = 2;
    private static final short METADATA_VERSION = 12;
    private static final short CREATE_TOPICS_VERSION = 7;

    private NodeRequests() {}

    /**
     * One DescribeQuorum to {@code node} (to its controller listener when it has one): its own view, as the leader (no
     * error) or as any other replica
     * (NOT_LEADER_OR_FOLLOWER naming the leader and epoch it knows, Kafka's answer); empty when it does not answer
     * within {@link #QUERY_TIMEOUT} or answers another error.
     */
    public static Optional<QuorumView> describeQuorum(ClusterNode node) {
        DescribeQuorumRequestData request = new DescribeQuorumRequestData();
        request.topics()
                .add(new DescribeQuorumRequestData.TopicData()
                        .setTopicName("__cluster_metadata")
                        .setPartitions(List.of(new DescribeQuorumRequestData.PartitionData().setPartitionIndex(0))));
        // A controller's own listener answers from its own Raft state; a client listener forwards DescribeQuorum to
        // the active controller (as Kafka's brokers do), which would hide what this node believes.
        int port = node.controllerPort() > 0 ? node.controllerPort() : node.clientPort();
        try (RawClient client = new RawClient(node.host(), port, QUERY_TIMEOUT)) {
            DescribeQuorumResponseData response = client.send(request, DESCRIBE_QUORUM_VERSION);
            if (response.errorCode() != Errors.NONE.code()
                    || response.topics().isEmpty()
                    || response.topics().get(0).partitions().isEmpty()) {
                return Optional.empty();
            }
            DescribeQuorumResponseData.PartitionData p =
                    response.topics().get(0).partitions().get(0);
            if (p.errorCode() != Errors.NONE.code() && p.errorCode() != Errors.NOT_LEADER_OR_FOLLOWER.code()) {
                return Optional.empty();
            }
            return Optional.of(
                    new QuorumView(node.id(), p.leaderId(), p.leaderEpoch(), p.highWatermark(), System.nanoTime()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Topic name to topic id as {@code node}'s Metadata answers for all topics; empty when it does not answer. */
    public static Optional<Map<String, Uuid>> topicIds(ClusterNode node) {
        MetadataRequestData request = new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false);
        try (RawClient client = new RawClient(node.host(), node.requestPort(), QUERY_TIMEOUT)) {
            MetadataResponseData response = client.send(request, METADATA_VERSION);
            Map<String, Uuid> ids = new LinkedHashMap<>();
            for (MetadataResponseData.MetadataResponseTopic topic : response.topics()) {
                if (topic.errorCode() == Errors.NONE.code() && ids.put(topic.name(), topic.topicId()) != null) {
                    throw new AssertionError(node + " lists topic " + topic.name() + " twice");
                }
            }
            return Optional.of(ids);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** {@link #topicIds} retried until {@code node} answers, within {@code bound} (a busy node may miss one). */
    public static Map<String, Uuid> topicIdsWithin(ClusterNode node, Duration bound) {
        AtomicReference<Map<String, Uuid>> answer = new AtomicReference<>();
        await(node + " answers Metadata")
                .atMost(bound)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    topicIds(node).ifPresent(answer::set);
                    return answer.get() != null;
                });
        return answer.get();
    }

    /**
     * The leader of partition {@code partition} of {@code topic} in {@code node}'s Metadata answer (-1: none), or
     * empty when the node does not answer or does not know the topic.
     */
    public static Optional<Integer> partitionLeader(ClusterNode node, String topic, int partition) {
        MetadataRequestData request = new MetadataRequestData()
                .setAllowAutoTopicCreation(false)
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic)));
        try (RawClient client = new RawClient(node.host(), node.requestPort(), QUERY_TIMEOUT)) {
            MetadataResponseData response = client.send(request, METADATA_VERSION);
            MetadataResponseData.MetadataResponseTopic described =
                    response.topics().find(topic);
            if (described == null || described.errorCode() != Errors.NONE.code()) {
                return Optional.empty();
            }
            return described.partitions().stream()
                    .filter(p -> p.partitionIndex() == partition)
                    .findFirst()
                    .map(MetadataResponseData.MetadataResponsePartition::leaderId);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The broker ids in {@code node}'s Metadata answer, or empty when it does not answer. */
    public static Optional<List<Integer>> brokerIds(ClusterNode node) {
        MetadataRequestData request =
                new MetadataRequestData().setTopics(List.of()).setAllowAutoTopicCreation(false);
        try (RawClient client = new RawClient(node.host(), node.requestPort(), QUERY_TIMEOUT)) {
            MetadataResponseData response = client.send(request, METADATA_VERSION);
            return Optional.of(response.brokers().stream()
                    .map(MetadataResponseData.MetadataResponseBroker::nodeId)
                    .sorted()
                    .toList());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * One CreateTopics of a one-partition topic sent to {@code node} itself (raw, not through an admin client, which
     * would send it to whichever node a Metadata answer names as controller); its error, or an {@link IOException}
     * when no answer came within {@code timeout} (the outcome is then unknown).
     */
    public static Errors createTopicOnce(ClusterNode node, String name, Duration timeout) throws IOException {
        return createTopicOnce(
                node,
                new CreateTopicsRequestData.CreatableTopic()
                        .setName(name)
                        .setNumPartitions(1)
                        .setReplicationFactor((short) 1),
                timeout);
    }

    /** {@link #createTopicOnce(ClusterNode, String, Duration)} of one partition on broker {@code brokerId} alone. */
    public static Errors createTopicOnBrokerOnce(ClusterNode node, String name, int brokerId, Duration timeout)
            throws IOException {
        CreateTopicsRequestData.CreatableTopic topic = new CreateTopicsRequestData.CreatableTopic()
                .setName(name)
                .setNumPartitions(-1)
                .setReplicationFactor((short) -1);
        topic.assignments()
                .add(new CreateTopicsRequestData.CreatableReplicaAssignment()
                        .setPartitionIndex(0)
                        .setBrokerIds(List.of(brokerId)));
        return createTopicOnce(node, topic, timeout);
    }

    private static Errors createTopicOnce(
            ClusterNode node, CreateTopicsRequestData.CreatableTopic topic, Duration timeout) throws IOException {
        String name = topic.name();
        CreateTopicsRequestData request = new CreateTopicsRequestData().setTimeoutMs((int) timeout.toMillis());
        request.topics().add(topic);
        try (RawClient client = new RawClient(node.host(), node.requestPort(), timeout)) {
            CreateTopicsResponseData response = client.send(request, CREATE_TOPICS_VERSION);
            CreateTopicsResponseData.CreatableTopicResult result =
                    response.topics().find(name);
            return result == null ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(result.errorCode());
        }
    }
}

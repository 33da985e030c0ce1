package io.varve.broker.api.quorum;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.record.Endpoint;
import io.varve.raft.MetadataRaft;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.DescribeQuorumResponseData.Listener;
import org.apache.kafka.common.message.DescribeQuorumResponseData.Node;
import org.apache.kafka.common.message.DescribeQuorumResponseData.PartitionData;
import org.apache.kafka.common.message.DescribeQuorumResponseData.ReplicaState;
import org.apache.kafka.common.message.DescribeQuorumResponseData.TopicData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeQuorum for the one-node quorum this release runs (what {@code kafka-metadata-quorum describe --status} and
 * {@code --replication} and Admin.describeMetadataQuorum ask): this node is the only voter and the leader, its log end
 * is the high watermark (a single voter commits what it appends), and there are no observers. Answered on the broker
 * listener, as a Kafka broker forwards it to its active controller.
 */
public final class DescribeQuorumHandler implements ApiHandler {
    static final String METADATA_TOPIC = "__cluster_metadata";

    private final MetadataRaft raft;
    private final Supplier<List<Endpoint>> endpoints;
    private final LongSupplier clockMs;

    /** {@code endpoints}: this node's advertised listeners with their bound ports (known once the network is up). */
    public DescribeQuorumHandler(MetadataRaft raft, Supplier<List<Endpoint>> endpoints, LongSupplier clockMs) {
        this.raft = raft;
        this.endpoints = endpoints;
        this.clockMs = clockMs;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        DescribeQuorumRequestData data = request.body();
        DescribeQuorumResponseData response = new DescribeQuorumResponseData().setErrorCode(Errors.NONE.code());
        for (DescribeQuorumRequestData.TopicData topic : data.topics()) {
            TopicData topicResult = new TopicData().setTopicName(topic.topicName());
            for (DescribeQuorumRequestData.PartitionData partition : topic.partitions()) {
                PartitionData result = new PartitionData().setPartitionIndex(partition.partitionIndex());
                if (!METADATA_TOPIC.equals(topic.topicName()) || partition.partitionIndex() != 0) {
                    result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                            .setErrorMessage("Only " + METADATA_TOPIC + "-0 has a quorum.");
                } else {
                    long highWatermark = raft.highWatermark();
                    result.setErrorCode(Errors.NONE.code())
                            .setLeaderId(raft.leaderId())
                            .setLeaderEpoch(raft.epoch())
                            .setHighWatermark(highWatermark)
                            .setCurrentVoters(List.of(new ReplicaState()
                                    .setReplicaId(raft.nodeId())
                                    .setReplicaDirectoryId(Uuid.ZERO_UUID)
                                    .setLogEndOffset(highWatermark)
                                    .setLastFetchTimestamp(-1)
                                    .setLastCaughtUpTimestamp(clockMs.getAsLong())))
                            .setObservers(List.of());
                }
                topicResult.partitions().add(result);
            }
            response.topics().add(topicResult);
        }
        if (request.apiVersion() >= 2) {
            Node node = new Node().setNodeId(raft.nodeId());
            for (Endpoint endpoint : endpoints.get()) {
                node.listeners()
                        .add(new Listener()
                                .setName(endpoint.listenerName())
                                .setHost(endpoint.host())
                                .setPort(endpoint.port()));
            }
            response.nodes().add(node);
        }
        return CompletableFuture.completedFuture(response);
    }
}

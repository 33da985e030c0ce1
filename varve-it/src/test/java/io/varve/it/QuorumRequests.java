package io.varve.it;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;

/** What the quorum ITs ask one node directly, and how they format its directory before it first starts. */
final class QuorumRequests {
    static final short DESCRIBE_QUORUM_VERSION = 2;
    static final short METADATA_VERSION = 12;

    private QuorumRequests() {}

    /** What {@code kafka-storage format --cluster-id} does for Kafka: the nodes of a cluster share the cluster id. */
    static void formatLikeKafkaStorage(Path logDir, String clusterId, int nodeId) throws IOException {
        Files.createDirectories(logDir);
        Properties p = new Properties();
        p.setProperty("version", "1");
        p.setProperty("cluster.id", clusterId);
        p.setProperty("node.id", Integer.toString(nodeId));
        p.setProperty("directory.id", Uuid.randomUuid().toString());
        try (Writer w = Files.newBufferedWriter(logDir.resolve("meta.properties"), UTF_8)) {
            p.store(w, "formatted by a varve-it test");
        }
    }

    /** DescribeQuorum of {@code __cluster_metadata} as the node on {@code port} answers it. */
    static DescribeQuorumResponseData.PartitionData quorumOf(int port) throws IOException {
        DescribeQuorumRequestData request = new DescribeQuorumRequestData();
        request.topics()
                .add(new DescribeQuorumRequestData.TopicData()
                        .setTopicName("__cluster_metadata")
                        .setPartitions(List.of(new DescribeQuorumRequestData.PartitionData().setPartitionIndex(0))));
        try (RawClient client = new RawClient(port)) {
            DescribeQuorumResponseData response = client.send(request, DESCRIBE_QUORUM_VERSION);
            return response.topics().get(0).partitions().get(0);
        }
    }

    /** Metadata of one topic as the node on {@code port} has it (no auto-creation). */
    static MetadataResponseData.MetadataResponseTopic metadataOf(int port, String topic) throws IOException {
        MetadataRequestData request = new MetadataRequestData()
                .setAllowAutoTopicCreation(false)
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic)));
        try (RawClient client = new RawClient(port)) {
            MetadataResponseData response = client.send(request, METADATA_VERSION);
            return response.topics().find(topic);
        }
    }
}

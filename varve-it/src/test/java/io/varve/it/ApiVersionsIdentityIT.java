package io.varve.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ApiVersions v5 (KIP-1242): a client naming the cluster and node it means to reach gets the versions from that
 * node, and REBOOTSTRAP_REQUIRED (with nothing else) from a broker that is another node or of another cluster.
 */
class ApiVersionsIdentityIT {
    private static final short V5 = 5;

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker();

    private static ApiVersionsRequestData naming(String clusterId, int nodeId) {
        return WireRequests.apiVersions().setClusterId(clusterId).setNodeId(nodeId);
    }

    @Test
    void aVersion5RequestNamingThisNodeOfThisClusterGetsTheVersionsAndAnyOtherGetsRebootstrapRequired()
            throws Exception {
        DescribeClusterResult cluster = shared.admin().describeCluster();
        String clusterId = cluster.clusterId().get(30, TimeUnit.SECONDS);
        int nodeId = cluster.nodes().get(30, TimeUnit.SECONDS).iterator().next().id();
        try (RawClient client = new RawClient(shared.broker().port())) {
            ApiVersionsResponseData right = client.send(naming(clusterId, nodeId), V5);
            assertThat(right.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(right.apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion())
                    .isEqualTo(V5);

            ApiVersionsResponseData otherNode = client.send(naming(clusterId, nodeId + 1), V5);
            assertThat(otherNode.errorCode()).isEqualTo(Errors.REBOOTSTRAP_REQUIRED.code());
            assertThat(otherNode.apiKeys()).isEmpty();

            assertThat(client.<ApiVersionsResponseData>send(naming("another-cluster", nodeId), V5)
                            .errorCode())
                    .isEqualTo(Errors.REBOOTSTRAP_REQUIRED.code());
            assertThat(client.<ApiVersionsResponseData>send(naming(null, nodeId + 1), V5)
                            .errorCode())
                    .as("without a cluster id nothing is checked")
                    .isEqualTo(Errors.NONE.code());
            assertThat(client.<ApiVersionsResponseData>send(naming("another-cluster", nodeId), (short) 4)
                            .errorCode())
                    .as("version 4 carries no identity")
                    .isEqualTo(Errors.NONE.code());
        }
    }

    @Test
    void aKafkaClients44ConsumerThatRebootstrapsOnRequestStillReachesTheBroker() throws Exception {
        String topic = ClientSupport.uniqueTopic("identity");
        ClientSupport.createTopic(shared.admin(), topic, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = shared.broker()
                .consumer(Map.of(
                        org.apache.kafka.clients.CommonClientConfigs.METADATA_RECOVERY_STRATEGY_CONFIG,
                        "rebootstrap"))) {
            // the bootstrap connection names no node; the connection to node 1 names the cluster and node
            assertThat(consumer.endOffsets(List.of(tp), ClientSupport.TIMEOUT)).containsEntry(tp, 0L);
            assertThat(consumer.partitionsFor(topic, ClientSupport.TIMEOUT)).hasSize(1);
        }
    }
}

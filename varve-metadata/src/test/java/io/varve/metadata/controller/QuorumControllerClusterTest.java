package io.varve.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.metadata.TestMetadataNode;
import io.varve.metadata.controller.cluster.BrokerHeartbeatRequest;
import io.varve.metadata.controller.feature.FeatureUpdate;
import io.varve.metadata.image.PartitionImage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker lifecycle through the QuorumController, with its own session check and a fake clock. */
class QuorumControllerClusterTest {

    @TempDir
    Path dir;

    private final AtomicLong clockMs = new AtomicLong(1_000_000);

    @Test
    void aBrokerThatStopsHeartbeatingIsFencedByTheSessionCheckAndItsPartitionsMove() {
        ControllerConfig config = new ControllerConfig(2, (short) 2).withBrokerSessionTimeoutMs(200);
        try (TestMetadataNode node = TestMetadataNode.start(dir, config, clockMs::get)) {
            long epoch1 = node.registerAndUnfence(TestMetadataNode.registration(1));
            long epoch2 = node.registerAndUnfence(TestMetadataNode.registration(2));
            assertThat(node.controller
                            .createTopics(List.of(CreateTopicRequest.withDefaults("t")), false)
                            .join()
                            .get(0)
                            .error())
                    .isEqualTo(Errors.NONE);

            clockMs.addAndGet(150);
            node.controller
                    .brokerHeartbeat(BrokerHeartbeatRequest.of(
                            2, epoch2, node.loader.image().offset()))
                    .join();
            clockMs.addAndGet(100); // broker 1 silent for 250 ms, broker 2 for 100 ms

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> node.loader.image().cluster().broker(1).fenced());
            for (PartitionImage partition :
                    node.loader.image().topics().getTopic("t").partitions().values()) {
                assertThat(partition.leader()).isEqualTo(2);
                assertThat(partition.isr()).containsExactly(2);
            }
            assertThat(node.loader.image().cluster().broker(2).fenced()).isFalse();
            assertThat(node.controller
                            .brokerHeartbeat(BrokerHeartbeatRequest.of(1, epoch1 + 1, 0))
                            .join()
                            .error())
                    .isEqualTo(Errors.STALE_BROKER_EPOCH);
        }
    }

    @Test
    void featureLevelsAreFinalizedThroughTheController() {
        try (TestMetadataNode node = TestMetadataNode.startWithBroker(dir)) {
            ErrorReply reply = node.controller
                    .updateFeatures(Map.of("group.version", FeatureUpdate.upgrade(1)), false)
                    .join();

            assertThat(reply).isEqualTo(ErrorReply.NONE);
            assertThat(node.loader.image().features().level("group.version")).isEqualTo((short) 1);
        }
    }
}

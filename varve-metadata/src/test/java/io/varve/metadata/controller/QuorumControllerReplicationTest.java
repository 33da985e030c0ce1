package io.varve.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.metadata.TestMetadataNode;
import io.varve.metadata.controller.cluster.BrokerHeartbeatRequest;
import io.varve.metadata.controller.replication.AlterPartitionRequest;
import io.varve.metadata.controller.replication.AlterPartitionRequest.IsrMember;
import io.varve.metadata.controller.replication.AlterPartitionRequest.PartitionIsr;
import io.varve.metadata.controller.replication.PartitionReassignment;
import io.varve.metadata.controller.replication.PartitionResultError;
import io.varve.metadata.controller.replication.ReplicationControl.ElectionType;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.image.PartitionImage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Elections and reassignments through the QuorumController: its rebalance timer and config-triggered elections. */
class QuorumControllerReplicationTest {

    @TempDir
    Path dir;

    private final AtomicLong clockMs = new AtomicLong(1_000_000);

    private static CreateTopicRequest onBrokers(String name, Integer... replicas) {
        return new CreateTopicRequest(name, -1, (short) -1, Map.of(0, List.of(replicas)), Map.of());
    }

    private static PartitionImage partition(TestMetadataNode node, String topic) {
        return node.loader.image().topics().getTopic(topic).partition(0);
    }

    private static void fence(TestMetadataNode node, int broker, long epoch) {
        node.controller
                .brokerHeartbeat(new BrokerHeartbeatRequest(
                        broker, epoch, node.loader.image().offset(), true, false))
                .join();
    }

    @Test
    void theRebalanceTimerMovesALeadershipBackToItsReturnedPreferredReplica() {
        ControllerConfig config = new ControllerConfig(1, (short) 1)
                .withLeaderRebalance(new ControllerConfig.LeaderRebalance(true, 100, 0));
        try (TestMetadataNode node = TestMetadataNode.start(dir, config, clockMs::get)) {
            long epoch1 = node.registerAndUnfence(TestMetadataNode.registration(1));
            node.registerAndUnfence(TestMetadataNode.registration(2));
            node.controller.createTopics(List.of(onBrokers("t", 1, 2)), false).join();
            fence(node, 1, epoch1);
            assertThat(partition(node, "t").leader()).isEqualTo(2);
            // Broker 1 back in the ISR (as its leader's AlterPartition would put it) and unfenced.
            node.controller
                    .brokerHeartbeat(BrokerHeartbeatRequest.of(
                            1, epoch1, node.loader.image().offset()))
                    .join();
            PartitionImage led = partition(node, "t");
            node.controller
                    .alterPartition(new AlterPartitionRequest(
                            2,
                            node.loader.image().cluster().broker(2).epoch(),
                            List.of(new PartitionIsr(
                                    node.loader.image().topics().getTopic("t").id(),
                                    0,
                                    led.leaderEpoch(),
                                    List.of(IsrMember.of(2), IsrMember.of(1)),
                                    led.partitionEpoch()))))
                    .join();

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> partition(node, "t").leader() == 1);
        }
    }

    @Test
    void turningOnUncleanElectionForATopicElectsItsOfflinePartition() {
        ControllerConfig config = new ControllerConfig(1, (short) 1)
                .withLeaderRebalance(new ControllerConfig.LeaderRebalance(false, 1000, 10));
        try (TestMetadataNode node = TestMetadataNode.start(dir, config, clockMs::get)) {
            long epoch1 = node.registerAndUnfence(TestMetadataNode.registration(1));
            node.registerAndUnfence(TestMetadataNode.registration(2));
            node.controller.createTopics(List.of(onBrokers("t", 1, 2)), false).join();
            PartitionImage created = partition(node, "t");
            node.controller
                    .alterPartition(new AlterPartitionRequest(
                            1,
                            epoch1,
                            List.of(new PartitionIsr(
                                    node.loader.image().topics().getTopic("t").id(),
                                    0,
                                    created.leaderEpoch(),
                                    List.of(IsrMember.of(1)),
                                    created.partitionEpoch()))))
                    .join();
            fence(node, 1, epoch1);
            assertThat(partition(node, "t").leader()).isEqualTo(-1);

            node.controller
                    .incrementalAlterConfigs(
                            Map.of(
                                    ConfigResource.topic("t"),
                                    List.of(ConfigChange.set("unclean.leader.election.enable", "true"))),
                            false)
                    .join();

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> partition(node, "t").leader() == 2);
            assertThat(partition(node, "t").isr()).containsExactly(2);
        }
    }

    @Test
    void electLeadersAndReassignmentsAnswerThroughTheController() {
        try (TestMetadataNode node = TestMetadataNode.start(dir, ControllerConfig.defaults(), clockMs::get)) {
            node.registerAndUnfence(TestMetadataNode.registration(1));
            node.registerAndUnfence(TestMetadataNode.registration(2));
            node.controller.createTopics(List.of(onBrokers("t", 1)), false).join();

            List<PartitionResultError> elected = node.controller
                    .electLeaders(ElectionType.PREFERRED, Map.of("t", List.of(0)))
                    .join();
            List<PartitionResultError> reassigned = node.controller
                    .alterPartitionReassignments(List.of(new PartitionReassignment("t", 0, List.of(2))), true)
                    .join();

            assertThat(elected).extracting(PartitionResultError::error).containsExactly(Errors.ELECTION_NOT_NEEDED);
            assertThat(reassigned).extracting(PartitionResultError::error).containsExactly(Errors.NONE);
            assertThat(node.controller.listPartitionReassignments(null).join())
                    .singleElement()
                    .satisfies(r -> assertThat(r.addingReplicas()).containsExactly(2));
            assertThat(node.controller
                            .createPartitions(List.of(new CreatePartitionsRequest("t", 2, null)), false)
                            .join()
                            .get(0)
                            .error())
                    .isEqualTo(Errors.REASSIGNMENT_IN_PROGRESS);
        }
    }
}

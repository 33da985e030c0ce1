package io.varve.metadata.controller.replication;

import static io.varve.metadata.controller.ClusterFixture.apply;
import static io.varve.metadata.controller.ClusterFixture.cluster;
import static io.varve.metadata.controller.ClusterFixture.epochOf;
import static io.varve.metadata.controller.ClusterFixture.ids;
import static io.varve.metadata.controller.ClusterFixture.partitionOf;
import static io.varve.metadata.controller.ClusterFixture.topicId;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.replication.AlterPartitionRequest.IsrMember;
import io.varve.metadata.controller.replication.AlterPartitionRequest.PartitionIsr;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ReassignmentControlTest {

    private final ReplicationControl replication = new ReplicationControl();
    private final ReassignmentControl control = new ReassignmentControl(replication);

    private static MetadataImage replicas123LedBy1() {
        return cluster()
                .unfenced(1, 2, 3, 4)
                .partition(ids(1, 2, 3), ids(1, 2, 3), 1)
                .image();
    }

    private ControllerResult<List<PartitionResultError>> reassign(MetadataImage image, Integer... target) {
        return control.alter(
                image, List.of(new PartitionReassignment("t0", 0, target == null ? null : Arrays.asList(target))));
    }

    private MetadataImage leaderAlters(MetadataImage image, int... isr) {
        PartitionImage p = partitionOf(image, 0);
        AlterPartitionRequest request = new AlterPartitionRequest(
                p.leader(),
                epochOf(p.leader()),
                List.of(new PartitionIsr(
                        topicId(0),
                        0,
                        p.leaderEpoch(),
                        IntStream.of(isr).mapToObj(IsrMember::of).toList(),
                        p.partitionEpoch())));
        return apply(image, replication.alterPartition(image, request).records());
    }

    @Test
    void aMoveFirstGrowsTheReplicasWithTheTargetFirstAndKeepsIsrAndLeader() {
        MetadataImage image = replicas123LedBy1();

        ControllerResult<List<PartitionResultError>> result = reassign(image, 4, 2, 3);
        PartitionImage during = partitionOf(apply(image, result.records()), 0);

        assertThat(result.response()).extracting(PartitionResultError::error).containsExactly(Errors.NONE);
        assertThat(during.replicas()).containsExactly(4, 2, 3, 1);
        assertThat(during.addingReplicas()).containsExactly(4);
        assertThat(during.removingReplicas()).containsExactly(1);
        assertThat(during.isr()).containsExactly(1, 2, 3);
        assertThat(during.leader()).isEqualTo(1);
        assertThat(control.list(apply(image, result.records()), null))
                .singleElement()
                .satisfies(ongoing -> assertThat(ongoing.addingReplicas()).containsExactly(4));
    }

    @Test
    void theLeadersAlterPartitionAddingTheNewReplicaCompletesItAndTheRemovedLeaderHandsOver() {
        MetadataImage during = apply(
                replicas123LedBy1(), reassign(replicas123LedBy1(), 4, 2, 3).records());
        int leaderEpoch = partitionOf(during, 0).leaderEpoch();

        PartitionImage done = partitionOf(leaderAlters(during, 1, 2, 3, 4), 0);

        assertThat(done.replicas()).containsExactly(4, 2, 3);
        assertThat(done.isr()).containsExactly(2, 3, 4);
        assertThat(done.isReassigning()).isFalse();
        assertThat(done.leader()).isEqualTo(4);
        assertThat(done.leaderEpoch()).isEqualTo(leaderEpoch + 1);
    }

    @Test
    void theAnswerToTheLeaderWhoseReplicaWasRemovedIsNewLeaderElected() {
        MetadataImage during = apply(
                replicas123LedBy1(), reassign(replicas123LedBy1(), 4, 2, 3).records());
        PartitionImage p = partitionOf(during, 0);
        AlterPartitionRequest request = new AlterPartitionRequest(
                1,
                epochOf(1),
                List.of(new PartitionIsr(
                        topicId(0),
                        0,
                        p.leaderEpoch(),
                        IntStream.of(1, 2, 3, 4).mapToObj(IsrMember::of).toList(),
                        p.partitionEpoch())));

        AlterPartitionReply reply = replication.alterPartition(during, request).response();

        assertThat(reply.partitions().get(0).error()).isEqualTo(Errors.NEW_LEADER_ELECTED);
        assertThat(reply.partitions().get(0).leader()).isEqualTo(4);
    }

    @Test
    void aShrinkWithoutNewReplicasCompletesAtOnce() {
        MetadataImage image = replicas123LedBy1();

        PartitionImage after = partitionOf(apply(image, reassign(image, 2, 3).records()), 0);

        assertThat(after.replicas()).containsExactly(2, 3);
        assertThat(after.isr()).containsExactly(2, 3);
        assertThat(after.leader()).isEqualTo(2);
        assertThat(after.isReassigning()).isFalse();
    }

    @Test
    void cancellingRevertsToTheOriginalReplicasInTheirOrderDuringTheReassignmentAsKafkaDoes() {
        MetadataImage during = apply(
                replicas123LedBy1(), reassign(replicas123LedBy1(), 4, 2, 3).records());

        ControllerResult<List<PartitionResultError>> cancel = reassign(during, (Integer[]) null);
        PartitionImage after = partitionOf(apply(during, cancel.records()), 0);

        assertThat(after.replicas()).containsExactly(2, 3, 1);
        assertThat(after.isr()).containsExactly(1, 2, 3);
        assertThat(after.isReassigning()).isFalse();
        assertThat(after.leader()).isEqualTo(1);
    }

    @Test
    void cancellingWithoutAReassignmentIsNoReassignmentInProgress() {
        assertThat(reassign(replicas123LedBy1(), (Integer[]) null).response())
                .extracting(PartitionResultError::error)
                .containsExactly(Errors.NO_REASSIGNMENT_IN_PROGRESS);
    }

    @Test
    void aNewTargetDuringAReassignmentReplacesItFromTheOriginalReplicas() {
        MetadataImage during = apply(
                replicas123LedBy1(), reassign(replicas123LedBy1(), 4, 2, 3).records());

        PartitionImage after =
                partitionOf(apply(during, reassign(during, 1, 2, 4).records()), 0);

        assertThat(after.replicas()).containsExactly(1, 2, 4, 3);
        assertThat(after.addingReplicas()).containsExactly(4);
        assertThat(after.removingReplicas()).containsExactly(3);
    }

    @Test
    void duplicateUnknownOrEmptyTargetsAreInvalidReplicaAssignmentAndUnknownPartitionsAreNamed() {
        MetadataImage image = replicas123LedBy1();

        assertThat(reassign(image, 1, 1, 2).response().get(0).error()).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
        assertThat(reassign(image, 1, 9).response().get(0).message()).contains("broker 9");
        assertThat(reassign(image).response().get(0).error()).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
        assertThat(control.alter(image, List.of(new PartitionReassignment("t0", 5, List.of(1))))
                        .response()
                        .get(0)
                        .error())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(control.alter(image, List.of(new PartitionReassignment("t0", 0, List.of(1, 2))), false)
                        .response()
                        .get(0)
                        .error())
                .as("KIP-860: the replication factor may not change")
                .isEqualTo(Errors.INVALID_REPLICATION_FACTOR);
    }

    @Test
    void listingNamedPartitionsReportsOnlyThoseBeingReassigned() {
        MetadataImage during = apply(
                replicas123LedBy1(), reassign(replicas123LedBy1(), 4, 2, 3).records());

        assertThat(control.list(during, Map.of("t0", List.of(0)))).hasSize(1);
        assertThat(control.list(during, Map.of("t0", List.of(1)))).isEmpty();
        assertThat(control.list(replicas123LedBy1(), null)).isEmpty();
    }

    @Test
    void theControllerLogsEachReassignmentStartedCompletedAndCancelled() {
        MetadataImage image = replicas123LedBy1();
        List<io.varve.metadata.record.MetadataRecord> start =
                reassign(image, 4, 2, 3).records();
        MetadataImage during = apply(image, start);
        PartitionImage p = partitionOf(during, 0);
        List<io.varve.metadata.record.MetadataRecord> complete = replication
                .alterPartition(
                        during,
                        new AlterPartitionRequest(
                                1,
                                epochOf(1),
                                List.of(new PartitionIsr(
                                        topicId(0),
                                        0,
                                        p.leaderEpoch(),
                                        IntStream.of(1, 2, 3, 4)
                                                .mapToObj(IsrMember::of)
                                                .toList(),
                                        p.partitionEpoch()))))
                .records();

        assertThat(ReplicationEvents.reassignments(image, start))
                .containsExactly("Reassignment of t0-0 started: replicas [4, 2, 3, 1], adding [4], removing [1]");
        assertThat(ReplicationEvents.reassignments(during, complete))
                .containsExactly("Reassignment of t0-0 completed: replicas [4, 2, 3], leader 4");
        assertThat(ReplicationEvents.reassignments(
                        during, reassign(during, (Integer[]) null).records()))
                .containsExactly("Reassignment of t0-0 cancelled: replicas [2, 3, 1]");
    }
}

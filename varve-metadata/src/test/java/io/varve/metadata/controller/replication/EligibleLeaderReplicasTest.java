package io.varve.metadata.controller.replication;

import static io.varve.metadata.controller.ClusterFixture.apply;
import static io.varve.metadata.controller.ClusterFixture.cluster;
import static io.varve.metadata.controller.ClusterFixture.epochOf;
import static io.varve.metadata.controller.ClusterFixture.ids;
import static io.varve.metadata.controller.ClusterFixture.partitionOf;
import static io.varve.metadata.controller.ClusterFixture.topicId;
import static io.varve.metadata.controller.replication.ReplicationTestSupport.elrOn;
import static io.varve.metadata.controller.replication.ReplicationTestSupport.fence;
import static io.varve.metadata.controller.replication.ReplicationTestSupport.topicConfig;
import static io.varve.metadata.controller.replication.ReplicationTestSupport.unfence;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.controller.cluster.BrokerHeartbeats;
import io.varve.metadata.controller.cluster.BrokerRegistrationRequest;
import io.varve.metadata.controller.cluster.ClusterControl;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.metadata.controller.replication.AlterPartitionRequest.IsrMember;
import io.varve.metadata.controller.replication.AlterPartitionRequest.PartitionIsr;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.record.Endpoint;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** KIP-966: the ELR is kept below min.insync.replicas and elected from when no ISR member is left. */
class EligibleLeaderReplicasTest {

    private final ReplicationControl control = new ReplicationControl();

    /** RF 3, min.insync.replicas 2, ISR = replicas, led by 1. */
    private static MetadataImage rf3MinIsr2() {
        return cluster()
                .unfenced(1, 2, 3)
                .record(elrOn())
                .partition(ids(1, 2, 3), ids(1, 2, 3), 1)
                .record(topicConfig("t0", "min.insync.replicas", "2"))
                .image();
    }

    @Test
    void membersLeavingAnIsrAtOrAboveMinIsrDoNotJoinTheElr() {
        PartitionImage after = partitionOf(fence(control, rf3MinIsr2(), 3), 0);

        assertThat(after.isr()).containsExactly(1, 2);
        assertThat(after.elr()).isEmpty();
    }

    @Test
    void membersLeavingAnIsrBelowMinIsrJoinTheElrAndTheLastMemberLeavesTheIsrToo() {
        MetadataImage image = fence(control, fence(control, rf3MinIsr2(), 3), 2);
        assertThat(partitionOf(image, 0).isr()).containsExactly(1);
        assertThat(partitionOf(image, 0).elr()).containsExactly(2);

        PartitionImage offline = partitionOf(fence(control, image, 1), 0);

        assertThat(offline.leader()).isEqualTo(-1);
        assertThat(offline.isr()).isEmpty();
        assertThat(offline.elr()).containsExactly(1, 2);
    }

    @Test
    void anElrMemberThatReturnsIsElectedCleanlyAndBecomesTheIsr() {
        MetadataImage offline = fence(control, fence(control, fence(control, rf3MinIsr2(), 3), 2), 1);

        PartitionImage after = partitionOf(unfence(control, offline, 2), 0);

        assertThat(after.leader()).isEqualTo(2);
        assertThat(after.isr()).containsExactly(2);
        assertThat(after.elr()).containsExactly(1);
    }

    @Test
    void aReplicaOutsideIsrAndElrIsNotElectedWhileUncleanElectionIsOff() {
        MetadataImage offline = fence(control, fence(control, fence(control, rf3MinIsr2(), 3), 2), 1);

        PartitionImage after = partitionOf(unfence(control, offline, 3), 0);

        assertThat(after.leader()).isEqualTo(-1);
        assertThat(after.elr()).containsExactly(1, 2);
    }

    @Test
    void theElrEmptiesOnceTheIsrIsBackAtMinIsr() {
        MetadataImage image = fence(control, fence(control, rf3MinIsr2(), 3), 2);
        image = apply(image, List.of(io.varve.metadata.record.BrokerRegistrationChangeRecord.unfence(2, epochOf(2))));
        AlterPartitionRequest expand = new AlterPartitionRequest(
                1,
                epochOf(1),
                List.of(new PartitionIsr(
                        topicId(0),
                        0,
                        partitionOf(image, 0).leaderEpoch(),
                        IntStream.of(1, 2).mapToObj(IsrMember::of).toList(),
                        partitionOf(image, 0).partitionEpoch())));

        PartitionImage after =
                partitionOf(apply(image, control.alterPartition(image, expand).records()), 0);

        assertThat(after.isr()).containsExactly(1, 2);
        assertThat(after.elr()).isEmpty();
    }

    @Test
    void withoutTheFeatureTheLastIsrMemberStaysAndNoElrIsKept() {
        MetadataImage image = cluster()
                .unfenced(1, 2, 3)
                .partition(ids(1, 2, 3), ids(1, 2, 3), 1)
                .record(topicConfig("t0", "min.insync.replicas", "2"))
                .image();

        PartitionImage after = partitionOf(fence(control, fence(control, fence(control, image, 3), 2), 1), 0);

        assertThat(after.isr()).containsExactly(1);
        assertThat(after.elr()).isEmpty();
        assertThat(after.leader()).isEqualTo(-1);
    }

    /** All three fenced: ISR empty, ELR [1, 2] (broker 3 left while the ISR was still at min.insync.replicas). */
    private MetadataImage allFenced() {
        return fence(control, fence(control, fence(control, rf3MinIsr2(), 3), 2), 1);
    }

    private MetadataImage reregistered(MetadataImage image, int broker, long previousBrokerEpoch) {
        ClusterControl cluster = new ClusterControl(ClusterFixtureIds.CLUSTER, new BrokerHeartbeats(9_000), control);
        BrokerRegistrationRequest request = new BrokerRegistrationRequest(
                broker,
                ClusterFixtureIds.CLUSTER,
                new Uuid(2, broker),
                List.of(new Endpoint("PLAINTEXT", "b" + broker, 9092, "PLAINTEXT")),
                null,
                SupportedFeatures.THIS_BUILD,
                previousBrokerEpoch);
        return apply(image, cluster.register(image, request, 0).records());
    }

    @Test
    void aBrokerRestartingWithoutACleanShutdownLeavesTheElrForTheLastKnownElr() {
        PartitionImage after = partitionOf(reregistered(allFenced(), 2, -1), 0);

        assertThat(after.elr()).containsExactly(1);
        assertThat(after.lastKnownElr()).containsExactly(2);
    }

    @Test
    void aBrokerShowingItsCleanShutdownEpochStaysInTheElr() {
        PartitionImage after = partitionOf(reregistered(allFenced(), 2, epochOf(2)), 0);

        assertThat(after.elr()).containsExactly(1, 2);
        assertThat(after.lastKnownElr()).isEmpty();
    }

    @Test
    void withIsrAndElrEmptyALastKnownElrMemberLeadsAsTheLastKnownLeader() {
        MetadataImage image = reregistered(reregistered(allFenced(), 1, -1), 2, -1);
        assertThat(partitionOf(image, 0).elr())
                .as(partitionOf(image, 0).toString())
                .isEmpty();
        assertThat(partitionOf(image, 0).lastKnownElr())
                .as(partitionOf(image, 0).toString())
                .containsExactly(1, 2);

        MetadataImage unfenced = apply(
                image,
                List.of(io.varve.metadata.record.BrokerRegistrationChangeRecord.unfence(
                        2, image.cluster().broker(2).epoch())));
        List<io.varve.metadata.record.MetadataRecord> election = control.electOfflineLeaders(unfenced, 2);
        PartitionImage after = partitionOf(apply(unfenced, election), 0);

        assertThat(after.leader()).isEqualTo(2);
        assertThat(after.isr()).containsExactly(2);
        assertThat(ReplicationEvents.uncleanElections(unfenced, election)).isEmpty();
    }

    /** The fixture's cluster id is whatever the cluster control is told; one constant for both sides. */
    private static final class ClusterFixtureIds {
        static final String CLUSTER = "c1";
    }

    @Test
    void loweringMinIsrOrTurningTheFeatureOffEmptiesTheElrAndPartitionsInLineYieldNoRecord() {
        MetadataImage image = fence(control, fence(control, rf3MinIsr2(), 3), 2);
        assertThat(partitionOf(image, 0).elr()).containsExactly(2);
        assertThat(control.applyElectionRules(image)).as("already in line").isEmpty();

        MetadataImage lowered = apply(image, List.of(topicConfig("t0", "min.insync.replicas", "1")));
        MetadataImage off = apply(
                image,
                List.of(new io.varve.metadata.record.FeatureLevelRecord(
                        SupportedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION, (short) 0)));

        assertThat(partitionOf(apply(lowered, control.applyElectionRules(lowered)), 0)
                        .elr())
                .isEmpty();
        assertThat(partitionOf(apply(off, control.applyElectionRules(off)), 0).elr())
                .isEmpty();
    }
}

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
import io.varve.metadata.record.BrokerRegistrationChangeRecord;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ReplicationControlTest {

    private final ReplicationControl control = new ReplicationControl();

    private MetadataImage without(MetadataImage image, int brokerId) {
        return apply(image, control.removeFromIsrsAndLeaderships(image, brokerId));
    }

    @Test
    void whenTheLeaderLeavesTheFirstActiveIsrMemberInReplicaOrderLeadsWithTheNextLeaderEpoch() {
        MetadataImage image = cluster()
                .unfenced(1, 2, 3)
                .partition(ids(1, 3, 2), ids(1, 2, 3), 1)
                .image();

        PartitionImage after = partitionOf(without(image, 1), 0);

        assertThat(after.leader()).isEqualTo(3);
        assertThat(after.isr()).containsExactly(2, 3);
        assertThat(after.leaderEpoch()).isEqualTo(6);
        assertThat(after.partitionEpoch()).isEqualTo(11);
    }

    @Test
    void aFollowerLeavingOnlyShrinksTheIsrAndKeepsTheLeaderEpoch() {
        MetadataImage image = cluster()
                .unfenced(1, 2, 3)
                .partition(ids(1, 2, 3), ids(1, 2, 3), 1)
                .image();

        PartitionImage after = partitionOf(without(image, 2), 0);

        assertThat(after.leader()).isEqualTo(1);
        assertThat(after.isr()).containsExactly(1, 3);
        assertThat(after.leaderEpoch()).isEqualTo(5);
    }

    @Test
    void theLastIsrMemberStaysInTheIsrAndThePartitionGoesOffline() {
        MetadataImage image =
                cluster().unfenced(1, 2).partition(ids(1, 2), ids(1), 1).image();

        PartitionImage after = partitionOf(without(image, 1), 0);

        assertThat(after.leader()).isEqualTo(-1);
        assertThat(after.isr()).containsExactly(1);
        assertThat(control.removeFromIsrsAndLeaderships(apply(image, List.of()), 2))
                .isEmpty();
    }

    @Test
    void electionsSkipFencedAndShuttingDownBrokers() {
        MetadataImage image = cluster()
                .unfenced(1, 2, 3)
                .fenced(4)
                .partition(ids(1, 4, 2, 3), ids(1, 4, 2, 3), 1)
                .record(BrokerRegistrationChangeRecord.enterControlledShutdown(2, epochOf(2)))
                .image();

        assertThat(partitionOf(without(image, 1), 0).leader()).isEqualTo(3);
    }

    @Test
    void aReturningBrokerLeadsTheOfflinePartitionsInWhoseIsrItIs() {
        MetadataImage offline = cluster()
                .fenced(1)
                .unfenced(2)
                .partition(ids(1, 2), ids(1), -1)
                .partition(ids(2, 1), ids(2), 2)
                .image();
        MetadataImage unfenced = apply(offline, List.of(BrokerRegistrationChangeRecord.unfence(1, epochOf(1))));

        MetadataImage after = apply(unfenced, control.electOfflineLeaders(unfenced, 1));

        assertThat(partitionOf(after, 0).leader()).isEqualTo(1);
        assertThat(partitionOf(after, 0).leaderEpoch()).isEqualTo(6);
        assertThat(partitionOf(after, 1).leader()).isEqualTo(2);
        assertThat(control.leaderships(after, 1)).isEqualTo(1);
    }

    /** Random fencings and returns over random partitions keep every partition's leader/ISR invariants. */
    @Test
    void leaderAndIsrInvariantsHoldOverRandomFencingsAndReturns() {
        for (int seed = 0; seed < 200; seed++) {
            java.util.Random random = new java.util.Random(seed);
            int brokers = 2 + random.nextInt(5);
            var fixture = cluster().unfenced(IntStream.rangeClosed(1, brokers).toArray());
            for (int p = 0; p < 8; p++) {
                List<Integer> shuffled = new java.util.ArrayList<>(
                        IntStream.rangeClosed(1, brokers).boxed().toList());
                java.util.Collections.shuffle(shuffled, random);
                int[] replicas = shuffled.subList(0, 1 + random.nextInt(brokers)).stream()
                        .mapToInt(Integer::intValue)
                        .toArray();
                fixture.partition(replicas, replicas, replicas[0]);
            }
            MetadataImage image = fixture.image();
            for (int step = 0; step < 30; step++) {
                int broker = 1 + random.nextInt(brokers);
                if (image.cluster().isActive(broker)) {
                    List<io.varve.metadata.record.MetadataRecord> records =
                            new java.util.ArrayList<>(control.removeFromIsrsAndLeaderships(image, broker));
                    records.add(BrokerRegistrationChangeRecord.fence(broker, epochOf(broker)));
                    image = apply(image, records);
                } else {
                    image = apply(image, List.of(BrokerRegistrationChangeRecord.unfence(broker, epochOf(broker))));
                    image = apply(image, control.electOfflineLeaders(image, broker));
                }
                assertInvariants(image, "seed " + seed + " step " + step);
            }
        }
    }

    private static void assertInvariants(MetadataImage image, String where) {
        for (int t = 0; t < 8; t++) {
            PartitionImage p = partitionOf(image, t);
            int[] isr = p.isr();
            assertThat(isr).as(where).isNotEmpty();
            if (isr.length > 1) {
                assertThat(java.util.Arrays.stream(isr).allMatch(image.cluster()::isActive))
                        .as(where + ": ISR members are active")
                        .isTrue();
            }
            if (p.leader() == -1) {
                assertThat(java.util.Arrays.stream(isr).noneMatch(image.cluster()::isActive))
                        .as(where + ": offline only when no ISR member can lead")
                        .isTrue();
            } else {
                assertThat(p.isInIsr(p.leader())).as(where).isTrue();
                assertThat(image.cluster().isActive(p.leader())).as(where).isTrue();
            }
        }
    }

    // AlterPartition

    private static AlterPartitionRequest alter(int leader, int leaderEpoch, int partitionEpoch, int... isr) {
        return new AlterPartitionRequest(
                leader,
                epochOf(leader),
                List.of(new PartitionIsr(
                        topicId(0),
                        0,
                        leaderEpoch,
                        IntStream.of(isr).mapToObj(IsrMember::of).toList(),
                        partitionEpoch)));
    }

    private static MetadataImage threeReplicasLedBy1() {
        return cluster().unfenced(1, 2, 3).partition(ids(1, 2, 3), ids(1, 2), 1).image();
    }

    private Errors error(MetadataImage image, AlterPartitionRequest request) {
        return control.alterPartition(image, request)
                .response()
                .partitions()
                .get(0)
                .error();
    }

    @Test
    void anIsrExpansionByTheLeaderIsWrittenAndAnsweredWithTheNextPartitionEpoch() {
        MetadataImage image = threeReplicasLedBy1();

        ControllerResult<AlterPartitionReply> result = control.alterPartition(image, alter(1, 5, 10, 1, 2, 3));

        AlterPartitionReply.PartitionResult partition =
                result.response().partitions().get(0);
        assertThat(partition.error()).isEqualTo(Errors.NONE);
        assertThat(partition.isr()).containsExactly(1, 2, 3);
        assertThat(partition.partitionEpoch()).isEqualTo(11);
        assertThat(partitionOf(apply(image, result.records()), 0).partitionEpoch())
                .isEqualTo(11);
    }

    @Test
    void aStalePartitionEpochIsInvalidUpdateVersionAndAStaleLeaderEpochIsFencedLeaderEpoch() {
        MetadataImage image = threeReplicasLedBy1();

        assertThat(error(image, alter(1, 5, 9, 1, 2, 3))).isEqualTo(Errors.INVALID_UPDATE_VERSION);
        assertThat(error(image, alter(1, 4, 10, 1, 2, 3))).isEqualTo(Errors.FENCED_LEADER_EPOCH);
        assertThat(error(image, alter(1, 6, 10, 1, 2, 3))).isEqualTo(Errors.FENCED_LEADER_EPOCH);
    }

    @Test
    void aRetryAskingForTheCurrentIsrSucceedsEvenWithAStalePartitionEpoch() {
        ControllerResult<AlterPartitionReply> result =
                control.alterPartition(threeReplicasLedBy1(), alter(1, 5, 9, 1, 2));

        assertThat(result.records()).isEmpty();
        assertThat(result.response().partitions().get(0).error()).isEqualTo(Errors.NONE);
        assertThat(result.response().partitions().get(0).partitionEpoch()).isEqualTo(10);
    }

    @Test
    void aRetryNamingTheCurrentIsrInAnotherOrderAlsoSucceedsWithoutARecord() {
        ControllerResult<AlterPartitionReply> result =
                control.alterPartition(threeReplicasLedBy1(), alter(1, 5, 9, 2, 1));

        assertThat(result.records()).isEmpty();
        assertThat(result.response().partitions().get(0).error()).isEqualTo(Errors.NONE);
        assertThat(result.response().partitions().get(0).partitionEpoch()).isEqualTo(10);
    }

    @Test
    void onlyTheLeaderMayAlterAndTheNewIsrMustHoldTheLeaderAndOnlyReplicas() {
        MetadataImage image = threeReplicasLedBy1();

        assertThat(error(image, alter(2, 5, 10, 1, 2, 3))).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(error(image, alter(1, 5, 10, 2, 3))).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(error(image, alter(1, 5, 10, 1, 4))).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(error(image, alter(1, 5, 10))).isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void fencedShuttingDownOrOtherIncarnationMembersAreIneligible() {
        MetadataImage image = cluster()
                .unfenced(1, 2, 3)
                .fenced(4)
                .partition(ids(1, 2, 3, 4), ids(1), 1)
                .record(BrokerRegistrationChangeRecord.enterControlledShutdown(3, epochOf(3)))
                .image();

        assertThat(error(image, alter(1, 5, 10, 1, 4))).isEqualTo(Errors.INELIGIBLE_REPLICA);
        assertThat(error(image, alter(1, 5, 10, 1, 3))).isEqualTo(Errors.INELIGIBLE_REPLICA);
        AlterPartitionRequest otherIncarnation = new AlterPartitionRequest(
                1,
                epochOf(1),
                List.of(new PartitionIsr(
                        topicId(0), 0, 5, List.of(IsrMember.of(1), new IsrMember(2, epochOf(2) - 1)), 10)));
        assertThat(error(image, otherIncarnation)).isEqualTo(Errors.INELIGIBLE_REPLICA);
        assertThat(error(image, alter(1, 5, 10, 1, 2))).isEqualTo(Errors.NONE);
    }

    @Test
    void aStaleBrokerEpochFailsTheWholeRequestAndUnknownPartitionsAreNamed() {
        MetadataImage image = threeReplicasLedBy1();

        AlterPartitionReply stale = control.alterPartition(image, new AlterPartitionRequest(1, 7, List.of()))
                .response();
        AlterPartitionReply unknown = control.alterPartition(
                        image,
                        new AlterPartitionRequest(
                                1,
                                epochOf(1),
                                List.of(
                                        new PartitionIsr(new Uuid(9, 9), 0, 5, List.of(IsrMember.of(1)), 10),
                                        new PartitionIsr(topicId(0), 3, 5, List.of(IsrMember.of(1)), 10))))
                .response();

        assertThat(stale.error()).isEqualTo(Errors.STALE_BROKER_EPOCH);
        assertThat(unknown.partitions())
                .extracting(AlterPartitionReply.PartitionResult::error)
                .containsExactly(Errors.UNKNOWN_TOPIC_ID, Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }
}

package io.varve.metadata.controller.replication;

import static io.varve.metadata.controller.ClusterFixture.apply;
import static io.varve.metadata.controller.ClusterFixture.cluster;
import static io.varve.metadata.controller.ClusterFixture.ids;
import static io.varve.metadata.controller.ClusterFixture.partitionOf;
import static io.varve.metadata.controller.replication.ReplicationTestSupport.fence;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.replication.ReplicationControl.ElectionType;
import io.varve.metadata.image.MetadataImage;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ElectionControlTest {

    private final ReplicationControl replication = new ReplicationControl();
    private final ElectionControl control = new ElectionControl(replication);

    private ControllerResult<List<PartitionResultError>> elect(MetadataImage image, ElectionType type) {
        return control.electLeaders(image, type, Map.of("t0", List.of(0)));
    }

    @Test
    void aPreferredElectionMovesTheLeadershipBackToTheFirstReplica() {
        MetadataImage image = cluster()
                .unfenced(1, 2, 3)
                .partition(ids(1, 2, 3), ids(1, 2, 3), 2)
                .image();

        ControllerResult<List<PartitionResultError>> result = elect(image, ElectionType.PREFERRED);

        assertThat(result.response().get(0).error()).isEqualTo(Errors.NONE);
        assertThat(partitionOf(apply(image, result.records()), 0).leader()).isEqualTo(1);
    }

    @Test
    void aPreferredLeaderAlreadyLeadingIsElectionNotNeeded() {
        MetadataImage image = cluster()
                .unfenced(1, 2, 3)
                .partition(ids(1, 2, 3), ids(1, 2, 3), 1)
                .image();

        assertThat(elect(image, ElectionType.PREFERRED).response().get(0).error())
                .isEqualTo(Errors.ELECTION_NOT_NEEDED);
        assertThat(control.electLeaders(image, ElectionType.PREFERRED, null).response())
                .as("all partitions: only those that needed an election")
                .isEmpty();
    }

    @Test
    void aPreferredReplicaOutOfTheIsrOrFencedIsPreferredLeaderNotAvailable() {
        MetadataImage outOfIsr = cluster()
                .unfenced(1, 2, 3)
                .partition(ids(1, 2, 3), ids(2, 3), 2)
                .image();
        MetadataImage fenced = cluster()
                .unfenced(2, 3)
                .fenced(1)
                .partition(ids(1, 2, 3), ids(1, 2, 3), 2)
                .image();

        assertThat(elect(outOfIsr, ElectionType.PREFERRED).response().get(0).error())
                .isEqualTo(Errors.PREFERRED_LEADER_NOT_AVAILABLE);
        assertThat(elect(fenced, ElectionType.PREFERRED).response().get(0).error())
                .isEqualTo(Errors.PREFERRED_LEADER_NOT_AVAILABLE);
    }

    @Test
    void anUncleanElectionElectsAnOutOfSyncReplicaOfAnOfflinePartitionWhateverTheTopicSays() {
        MetadataImage offline = fence(
                replication,
                cluster().unfenced(1, 2, 3).partition(ids(1, 2, 3), ids(1), 1).image(),
                1);

        ControllerResult<List<PartitionResultError>> result = elect(offline, ElectionType.UNCLEAN);

        assertThat(result.response().get(0).error()).isEqualTo(Errors.NONE);
        assertThat(partitionOf(apply(offline, result.records()), 0).leader()).isEqualTo(2);
        assertThat(elect(apply(offline, result.records()), ElectionType.UNCLEAN)
                        .response()
                        .get(0)
                        .error())
                .isEqualTo(Errors.ELECTION_NOT_NEEDED);
    }

    @Test
    void anUnknownPartitionIsNamed() {
        MetadataImage image = cluster().unfenced(1).partition(ids(1), ids(1), 1).image();

        assertThat(control.electLeaders(image, ElectionType.PREFERRED, Map.of("nope", List.of(0)))
                        .response()
                        .get(0)
                        .error())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void theRebalanceMovesLeadershipsOfBrokersAboveTheImbalanceThresholdOnly() {
        // Broker 1 prefers t0..t3 and leads only t0 (75% imbalance); broker 2 prefers t4..t13 and leads 9 (10%).
        var fixture = cluster().unfenced(1, 2);
        fixture.partition(ids(1, 2), ids(1, 2), 1);
        for (int i = 0; i < 3; i++) {
            fixture.partition(ids(1, 2), ids(1, 2), 2);
        }
        fixture.partition(ids(2, 1), ids(1, 2), 1);
        for (int i = 0; i < 9; i++) {
            fixture.partition(ids(2, 1), ids(1, 2), 2);
        }
        MetadataImage image = fixture.image();

        MetadataImage after = apply(image, control.rebalance(image, 10));

        for (int t = 0; t < 4; t++) {
            assertThat(partitionOf(after, t).leader()).isEqualTo(1);
        }
        assertThat(partitionOf(after, 4).leader()).as("10% is not above 10%").isEqualTo(1);
        assertThat(control.rebalance(after, 10)).isEmpty();
    }
}

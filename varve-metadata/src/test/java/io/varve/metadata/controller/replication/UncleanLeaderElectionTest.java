package io.varve.metadata.controller.replication;

import static io.varve.metadata.controller.ClusterFixture.apply;
import static io.varve.metadata.controller.ClusterFixture.cluster;
import static io.varve.metadata.controller.ClusterFixture.ids;
import static io.varve.metadata.controller.ClusterFixture.partitionOf;
import static io.varve.metadata.controller.replication.ReplicationTestSupport.clusterConfig;
import static io.varve.metadata.controller.replication.ReplicationTestSupport.fence;
import static io.varve.metadata.controller.replication.ReplicationTestSupport.topicConfig;
import static io.varve.metadata.controller.replication.ReplicationTestSupport.unfence;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import java.util.List;
import org.junit.jupiter.api.Test;

/** unclean.leader.election.enable: off keeps a partition offline until an ISR member returns; on elects any replica. */
class UncleanLeaderElectionTest {

    private final ReplicationControl control = new ReplicationControl();

    /** ISR shrunk to broker 1 alone, then broker 1 fenced: offline with live replicas 2 and 3. */
    private MetadataImage offlineWithLiveOutOfSyncReplicas(MetadataImage base) {
        return fence(control, base, 1);
    }

    private static MetadataImage isrOf1() {
        return cluster().unfenced(1, 2, 3).partition(ids(1, 2, 3), ids(1), 1).image();
    }

    @Test
    void offByDefaultThePartitionStaysOfflineUntilAnIsrMemberReturns() {
        MetadataImage offline = offlineWithLiveOutOfSyncReplicas(isrOf1());
        assertThat(partitionOf(offline, 0).leader()).isEqualTo(-1);
        assertThat(control.electOfflineLeaders(offline)).isEmpty();

        PartitionImage back = partitionOf(unfence(control, offline, 1), 0);

        assertThat(back.leader()).isEqualTo(1);
        assertThat(back.isr()).containsExactly(1);
    }

    @Test
    void onForTheTopicTheFirstLiveReplicaLeadsAndIsTheWholeIsr() {
        MetadataImage image = apply(isrOf1(), List.of(topicConfig("t0", "unclean.leader.election.enable", "true")));

        PartitionImage after = partitionOf(fence(control, image, 1), 0);

        assertThat(after.leader()).isEqualTo(2);
        assertThat(after.isr()).containsExactly(2);
        assertThat(ReplicationEvents.uncleanElections(image, control.removeFromIsrsAndLeaderships(image, 1)))
                .singleElement()
                .asString()
                .contains("broker 2 now leads t0-0");
    }

    @Test
    void turningItOnDynamicallyElectsTheOfflinePartitions() {
        MetadataImage offline = offlineWithLiveOutOfSyncReplicas(isrOf1());
        MetadataImage enabled = apply(offline, List.of(clusterConfig("unclean.leader.election.enable", "true")));

        PartitionImage after = partitionOf(apply(enabled, control.electOfflineLeaders(enabled)), 0);

        assertThat(after.leader()).isEqualTo(2);
        assertThat(after.isr()).containsExactly(2);
    }

    @Test
    void theControllersOwnDefaultAppliesBelowTopicAndClusterSettings() {
        ReplicationControl uncleanByDefault = new ReplicationControl(new ReplicationPolicy(true, 1));
        MetadataImage optedOut = apply(isrOf1(), List.of(topicConfig("t0", "unclean.leader.election.enable", "false")));

        assertThat(partitionOf(fence(uncleanByDefault, isrOf1(), 1), 0).leader())
                .isEqualTo(2);
        assertThat(partitionOf(fence(uncleanByDefault, optedOut, 1), 0).leader())
                .isEqualTo(-1);
    }
}

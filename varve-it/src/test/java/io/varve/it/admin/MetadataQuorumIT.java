package io.varve.it.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.SharedBroker;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Admin.describeMetadataQuorum, what {@code kafka-metadata-quorum --bootstrap-server … describe} sends. */
class MetadataQuorumIT {

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker();

    @Test
    void aSingleNodeDescribesItselfAsTheOnlyVoterAndTheLeader() throws Exception {
        shared.admin()
                .createTopics(java.util.List.of(new org.apache.kafka.clients.admin.NewTopic("q", 1, (short) 1)))
                .all()
                .get(30, TimeUnit.SECONDS);
        QuorumInfo quorum = shared.admin().describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS);
        assertThat(quorum.leaderId()).isEqualTo(1);
        assertThat(quorum.leaderEpoch()).isPositive();
        assertThat(quorum.highWatermark()).isPositive();
        assertThat(quorum.voters()).hasSize(1);
        assertThat(quorum.voters().get(0).replicaId()).isEqualTo(1);
        assertThat(quorum.voters().get(0).logEndOffset()).isEqualTo(quorum.highWatermark());
        assertThat(quorum.observers()).isEmpty();
        assertThat(quorum.nodes()).containsKey(1);
        assertThat(quorum.nodes().get(1).endpoints()).isNotEmpty();
    }
}

package io.varve.it.cluster;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three controllers ({@code process.roles=controller}) and three brokers ({@code process.roles=broker}); topics are
 * created in a loop through the brokers, which forward to the active controller, while that controller is SIGKILLed:
 * the other two controllers elect within a few seconds and no acknowledged topic is lost or created twice, on any
 * broker, also once the killed controller is back.
 */
class SplitRolesFailoverIT {
    private ClusterProcesses cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void sigkillOfTheActiveControllerWhileBrokersCreateTopicsElectsANewOneAndNoTopicIsLostOrDoubled() throws Exception {
        cluster = ClusterProcesses.split(3, 3).start(ClusterProcesses.workDir("SplitRolesFailoverIT"));
        QuorumView before = cluster.awaitLeader(ControllerKillIT.BOUND);
        ClusterNode leader = cluster.node(before.leaderId());
        List<TopicCreator.Settled> settled;
        try (TopicCreator creator = TopicCreator.toBrokers(cluster, "split-")) {
            ControllerKillIT.awaitSettled(creator, 5);
            leader.kill();
            cluster.awaitLeader(
                    cluster.liveControllersExcept(), before.leaderEpoch() + 1, ControllerKillIT.NEW_LEADER_BOUND);
            ControllerKillIT.awaitSettled(creator, creator.settled().size() + 5);
            creator.close();
            settled = creator.settled();
        }
        leader.start();
        cluster.awaitLeader(cluster.controllers(), before.leaderEpoch() + 1, ControllerKillIT.BOUND);
        ControllerKillIT.assertEveryNodeHoldsEachSettledTopicOnceUnderOneId(cluster, settled, "split-");
    }
}

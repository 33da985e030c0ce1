package io.varve.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three combined nodes; topics are created in a loop on whichever node leads while the active controller is stopped
 * cleanly (SIGTERM): its controller serves while its broker's controlled shutdown runs, then it resigns with
 * EndQuorumEpoch and stays up until its successor leads. No window without an acknowledged write comes near a
 * follower's fetch timeout (2 s), the time a crash costs, and no topic is lost or created twice.
 */
class LeaderCleanStopIT {
    private static final Duration FETCH_TIMEOUT = Duration.ofMillis(2000);

    private ClusterProcesses cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aCleanStopOfTheActiveControllerHandsOverWithNoWindowWithoutWritesNearAFetchTimeout() throws Exception {
        cluster = ClusterProcesses.combined(3).start(ClusterProcesses.workDir("LeaderCleanStopIT"));
        QuorumView before = cluster.awaitLeader(ControllerKillIT.BOUND);
        ClusterNode leader = cluster.node(before.leaderId());
        List<TopicCreator.Settled> settled;
        long stoppedNanos;
        try (TopicCreator creator = TopicCreator.toLeader(cluster, "clean-")) {
            ControllerKillIT.awaitSettled(creator, 5);
            stoppedNanos = System.nanoTime();
            assertThat(leader.stop(Duration.ofSeconds(30)))
                    .as("exited after SIGTERM")
                    .isTrue();
            QuorumView after = cluster.awaitLeader(
                    cluster.liveControllersExcept(), before.leaderEpoch() + 1, ControllerKillIT.BOUND);
            assertThat(after.leaderId()).isNotEqualTo(leader.id());
            ControllerKillIT.awaitSettled(creator, creator.settled().size() + 5);
            creator.close();
            settled = creator.settled();
        }
        long lastNanos = stoppedNanos;
        long longestGapNanos = 0;
        for (TopicCreator.Settled s : settled) {
            if (s.atNanos() > stoppedNanos) {
                longestGapNanos = Math.max(longestGapNanos, s.atNanos() - lastNanos);
                lastNanos = s.atNanos();
            }
        }
        long longestGapMs = TimeUnit.NANOSECONDS.toMillis(longestGapNanos);
        System.out.printf(
                "LeaderCleanStopIT: node %d stopped in epoch %d; longest window without a write %d ms%n",
                leader.id(), before.leaderEpoch(), longestGapMs);
        assertThat(longestGapMs).isLessThan(FETCH_TIMEOUT.toMillis());

        leader.start();
        cluster.awaitLeader(cluster.controllers(), before.leaderEpoch() + 1, ControllerKillIT.BOUND);
        ControllerKillIT.assertEveryNodeHoldsEachSettledTopicOnceUnderOneId(cluster, settled, "clean-");
    }
}

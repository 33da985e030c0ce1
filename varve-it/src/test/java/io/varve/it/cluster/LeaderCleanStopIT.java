package io.varve.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three combined nodes; the active controller is stopped cleanly (SIGTERM): it resigns with EndQuorumEpoch and stays
 * up until its successor leads, so the other two agree on a new leader, and it takes writes, before a follower's
 * fetch timeout (2 s) could have run out: the hand-over, not a crash's timeout, elected it.
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
    void aCleanStopOfTheActiveControllerHandsOverToASuccessorBeforeAnyFetchTimeoutRunsOut() throws Exception {
        cluster = ClusterProcesses.combined(3).start(ClusterProcesses.workDir("LeaderCleanStopIT"));
        QuorumView before = cluster.awaitLeader(ControllerKillIT.BOUND);
        ClusterNode leader = cluster.node(before.leaderId());
        cluster.createTopic(leader, "before-stop", ControllerKillIT.BOUND);

        long stoppedNanos = System.nanoTime();
        assertThat(leader.stop(Duration.ofSeconds(30)))
                .as("exited after SIGTERM")
                .isTrue();
        QuorumView after =
                cluster.awaitLeader(cluster.liveControllersExcept(), before.leaderEpoch() + 1, ControllerKillIT.BOUND);
        long handOverMs = TimeUnit.NANOSECONDS.toMillis(after.atNanos() - stoppedNanos);
        System.out.printf(
                "LeaderCleanStopIT: node %d stopped in epoch %d; node %d leads epoch %d %d ms after the SIGTERM%n",
                leader.id(), before.leaderEpoch(), after.leaderId(), after.leaderEpoch(), handOverMs);
        assertThat(handOverMs).isLessThan(FETCH_TIMEOUT.toMillis());
        cluster.createTopic(cluster.node(after.leaderId()), "after-stop", ControllerKillIT.BOUND);
    }
}

package io.varve.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three combined nodes; the active controller is SIGSTOPped for longer than the fetch timeout (2 s): the other two
 * elect a leader of a higher epoch and take writes; after SIGCONT the old leader steps down and follows it, and
 * every node's DescribeQuorum, polled throughout, named at most one leader per epoch.
 */
class LeaderPauseIT {
    private static final long FETCH_TIMEOUT_MS = 2000;

    private ClusterProcesses cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aLeaderPausedPastTheFetchTimeoutIsReplacedInAHigherEpochAndStepsDownWhenResumed() throws Exception {
        cluster = ClusterProcesses.combined(3).start(ClusterProcesses.workDir("LeaderPauseIT"));
        QuorumView before = cluster.awaitLeader(ControllerKillIT.BOUND);
        ClusterNode leader = cluster.node(before.leaderId());
        QuorumView after;
        try (QuorumWatcher watcher = QuorumWatcher.watch(cluster)) {
            long pausedNanos = System.nanoTime();
            leader.pause();
            after = cluster.awaitLeader(
                    cluster.liveControllersExcept(), before.leaderEpoch() + 1, ControllerKillIT.NEW_LEADER_BOUND);
            long pausedForMs = TimeUnit.NANOSECONDS.toMillis(after.atNanos() - pausedNanos);
            System.out.printf(
                    "LeaderPauseIT: node %d paused in epoch %d; node %d leads epoch %d %d ms later%n",
                    leader.id(), before.leaderEpoch(), after.leaderId(), after.leaderEpoch(), pausedForMs);
            ClusterNode successor = cluster.node(after.leaderId());
            cluster.createTopic(successor, "written-while-paused", ControllerKillIT.BOUND);

            long heldMs = FETCH_TIMEOUT_MS + 1000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedNanos);
            if (heldMs > 0) {
                Thread.sleep(
                        heldMs); // the fault lasts longer than the fetch timeout: a duration, not a synchronisation
            }
            leader.resume();
            QuorumView resumed =
                    cluster.awaitLeader(cluster.controllers(), after.leaderEpoch(), ControllerKillIT.BOUND);
            assertThat(resumed.leaderId()).isNotEqualTo(leader.id());
            await("the resumed node has the topic written while it was paused")
                    .atMost(ControllerKillIT.BOUND)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> NodeRequests.topicIds(leader)
                            .map(ids -> ids.containsKey("written-while-paused"))
                            .orElse(false));
            cluster.createTopic(cluster.node(resumed.leaderId()), "written-after-resume", ControllerKillIT.BOUND);
            watcher.close();
            assertThat(watcher.epochsWithSeveralLeaders())
                    .as("epochs for which two leaders were named, of %s", watcher.leadersByEpoch())
                    .isEmpty();
            assertThat(watcher.leadersByEpoch())
                    .containsEntry(before.leaderEpoch(), Set.of(leader.id()))
                    .containsEntry(after.leaderEpoch(), Set.of(after.leaderId()));
        }
    }
}

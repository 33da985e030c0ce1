package io.varve.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three combined nodes, each in its own network namespace; the active controller is cut off from the other two
 * (not from the test): the majority elects a leader of a higher epoch and takes writes, the isolated node commits
 * none (a CreateTopics sent to it at once, while it still believes it leads, fails and that topic never appears),
 * and once the partition heals it follows the majority's leader and has the majority's topic. Needs root.
 */
class LeaderPartitionIT {
    private ClusterProcesses cluster;

    @BeforeEach
    void needsNetworkNamespaces() {
        String reason = PrivateNetwork.unavailableReason();
        Assumptions.assumeTrue(reason == null, reason);
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void anIsolatedLeaderCommitsNothingWhileTheMajorityElectsAndTakesWritesAndItRejoinsOnHealing() throws Exception {
        cluster =
                ClusterProcesses.combined(3).inNetworkNamespaces().start(ClusterProcesses.workDir("LeaderPartitionIT"));
        QuorumView before = cluster.awaitLeader(ControllerKillIT.BOUND);
        ClusterNode isolated = cluster.node(before.leaderId());
        List<ClusterNode> majority = cluster.liveControllersExcept(isolated);
        try (QuorumWatcher watcher = QuorumWatcher.watch(cluster)) {
            cluster.isolate(isolated);
            // At once, while the isolated node may still believe it leads: it can append, never commit.
            CompletableFuture<Object> minorityWrite = CompletableFuture.supplyAsync(() -> {
                try {
                    return NodeRequests.createTopicOnce(isolated, "minority-side", Duration.ofSeconds(15));
                } catch (IOException e) {
                    return e;
                }
            });

            QuorumView after =
                    cluster.awaitLeader(majority, before.leaderEpoch() + 1, ControllerKillIT.NEW_LEADER_BOUND);
            System.out.printf(
                    "LeaderPartitionIT: node %d isolated in epoch %d; node %d leads epoch %d%n",
                    isolated.id(), before.leaderEpoch(), after.leaderId(), after.leaderEpoch());
            cluster.createTopic(cluster.node(after.leaderId()), "majority-side", ControllerKillIT.BOUND);

            assertThat(minorityWrite.get(30, TimeUnit.SECONDS))
                    .as("the answer to a CreateTopics sent to the isolated node")
                    .isNotEqualTo(Errors.NONE);
            assertThat(NodeRequests.topicIds(isolated).orElseThrow())
                    .doesNotContainKeys("majority-side", "minority-side");

            cluster.heal();
            QuorumView healed = cluster.awaitLeader(cluster.controllers(), after.leaderEpoch(), ControllerKillIT.BOUND);
            assertThat(healed.leaderId())
                    .isIn(majority.stream().map(ClusterNode::id).toList());
            for (ClusterNode node : cluster.controllers()) {
                await(node + " has the majority's topic")
                        .atMost(ControllerKillIT.BOUND)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> NodeRequests.topicIds(node)
                                .map(ids -> ids.containsKey("majority-side"))
                                .orElse(false));
                assertThat(NodeRequests.topicIds(node).orElseThrow())
                        .as("%s", node)
                        .doesNotContainKey("minority-side");
            }
            watcher.close();
            assertThat(watcher.epochsWithSeveralLeaders())
                    .as("epochs for which two leaders were named, of %s", watcher.leadersByEpoch())
                    .isEmpty();
        }
    }
}

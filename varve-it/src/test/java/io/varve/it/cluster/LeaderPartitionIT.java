package io.varve.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three combined nodes, each in its own network namespace; the active controller is cut off from the other two
 * (not from the test): the majority elects a leader of a higher epoch and takes writes, while nothing the isolated
 * node is asked commits (a CreateTopics sent to it at once, while it still believes it leads, fails, and no node has
 * that topic while the partition lasts). Once healed it follows the majority's leader, has the majority's topic, and
 * its own uncommitted append is gone (should it forward the client's request once healed, the topic exists once,
 * under one id everywhere). Every node's DescribeQuorum named at most one leader per epoch. Needs root.
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
            for (ClusterNode node : cluster.controllers()) {
                assertThat(NodeRequests.topicIdsWithin(node, ControllerKillIT.BOUND))
                        .as("%s while the partition lasts", node)
                        .doesNotContainKey("minority-side");
            }
            assertThat(NodeRequests.topicIdsWithin(isolated, ControllerKillIT.BOUND))
                    .doesNotContainKey("majority-side");

            cluster.heal();
            QuorumView healed = cluster.awaitLeader(cluster.controllers(), after.leaderEpoch(), ControllerKillIT.BOUND);
            assertThat(healed.leaderId())
                    .isIn(majority.stream().map(ClusterNode::id).toList());
            // The isolated node's own append of minority-side never committed and is truncated away. It may still
            // forward the client's request to the real leader once healed (a node retries a forward for 30 s, as
            // Kafka's request.timeout.ms): then minority-side exists once, under one id, on every node.
            Map<Integer, Map<String, Uuid>> byNode = new TreeMap<>();
            await("every node has the majority's topic and one view of minority-side")
                    .atMost(ControllerKillIT.BOUND)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        for (ClusterNode node : cluster.controllers()) {
                            Optional<Map<String, Uuid>> ids = NodeRequests.topicIds(node);
                            if (ids.isEmpty() || !ids.get().containsKey("majority-side")) {
                                return false;
                            }
                            byNode.put(node.id(), ids.get());
                        }
                        return byNode.values().stream()
                                        .map(ids -> Optional.ofNullable(ids.get("minority-side")))
                                        .distinct()
                                        .count()
                                == 1;
                    });
            System.out.printf(
                    "LeaderPartitionIT: after healing minority-side is %s%n",
                    byNode.values().iterator().next().containsKey("minority-side")
                            ? "there, forwarded to the leader once healed"
                            : "absent");
            watcher.close();
            assertThat(watcher.epochsWithSeveralLeaders())
                    .as("epochs for which two leaders were named, of %s", watcher.leadersByEpoch())
                    .isEmpty();
        }
    }
}

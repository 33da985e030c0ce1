package io.varve.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three combined nodes; an admin client creates topics in a loop while the active controller is SIGKILLed: the other
 * two elect a new leader within a few seconds, creation goes on there, and every topic whose creation was
 * acknowledged exists exactly once, with one topic id on every node, also on the killed node once it is back.
 */
class ControllerKillIT {
    /** Fetch timeout (2 s) + a pre-vote and a vote after a randomized election timeout (1-2 s) + a loaded machine. */
    static final Duration NEW_LEADER_BOUND = Duration.ofSeconds(10);

    static final Duration BOUND = Duration.ofSeconds(60);

    private ClusterProcesses cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void sigkillOfTheActiveControllerWhileTopicsAreCreatedElectsANewLeaderWithinSecondsAndNoTopicIsLostOrDoubled()
            throws Exception {
        cluster = ClusterProcesses.combined(3).start(ClusterProcesses.workDir("ControllerKillIT"));
        QuorumView before = cluster.awaitLeader(BOUND);
        ClusterNode leader = cluster.node(before.leaderId());
        List<TopicCreator.Settled> settled;
        try (TopicCreator creator = TopicCreator.toLeader(cluster, "kill-")) {
            awaitSettled(creator, 5);

            long killedNanos = System.nanoTime();
            leader.kill();
            QuorumView after =
                    cluster.awaitLeader(cluster.liveControllersExcept(), before.leaderEpoch() + 1, NEW_LEADER_BOUND);
            long electedMs = TimeUnit.NANOSECONDS.toMillis(after.atNanos() - killedNanos);
            System.out.printf(
                    "ControllerKillIT: node %d killed in epoch %d; node %d leads epoch %d %d ms later%n",
                    before.leaderId(), before.leaderEpoch(), after.leaderId(), after.leaderEpoch(), electedMs);
            assertThat(after.leaderId()).isNotEqualTo(leader.id());

            int settledAtKill = countSettledBefore(creator, killedNanos);
            awaitSettled(creator, settledAtKill + 5);
            creator.close();
            settled = creator.settled();
        }

        leader.start();
        cluster.awaitLeader(cluster.controllers(), before.leaderEpoch() + 1, BOUND);
        assertEveryNodeHoldsEachSettledTopicOnceUnderOneId(cluster, settled, "kill-");
    }

    static void awaitSettled(TopicCreator creator, int count) {
        await("topics settled: " + count)
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> creator.settled().size() >= count);
    }

    private static int countSettledBefore(TopicCreator creator, long nanos) {
        return (int)
                creator.settled().stream().filter(s -> s.atNanos() <= nanos).count();
    }

    /**
     * Every settled name is on every node, each under the same single id everywhere; no node has a topic of the
     * prefix that the creator did not settle, except the one name that was in flight when it stopped.
     */
    static void assertEveryNodeHoldsEachSettledTopicOnceUnderOneId(
            ClusterProcesses cluster, List<TopicCreator.Settled> settled, String prefix) {
        Set<String> names = settled.stream().map(TopicCreator.Settled::name).collect(Collectors.toSet());
        String inFlight = prefix + settled.size();
        Map<Integer, Map<String, Uuid>> byNode = new TreeMap<>();
        await("every node lists all " + names.size() + " settled topics")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    for (ClusterNode node : cluster.brokers()) {
                        Optional<Map<String, Uuid>> ids = NodeRequests.topicIds(node);
                        if (ids.isEmpty() || !ids.get().keySet().containsAll(names)) {
                            return false;
                        }
                        byNode.put(node.id(), ids.get());
                    }
                    return true;
                });
        Map<String, Set<Uuid>> idsByName = new TreeMap<>();
        byNode.forEach((node, ids) -> ids.forEach((name, id) -> {
            if (name.startsWith(prefix)) {
                idsByName.computeIfAbsent(name, n -> new TreeSet<>()).add(id);
            }
        }));
        assertThat(idsByName.keySet())
                .as("topics of the prefix on the nodes, besides those settled (%s in flight)", inFlight)
                .allMatch(name -> names.contains(name) || name.equals(inFlight));
        assertThat(idsByName)
                .as("one id per topic across nodes")
                .allSatisfy((name, ids) -> assertThat(ids).as(name).hasSize(1));
        System.out.printf(
                "%d topics settled (%d found to exist on a retry), identical on nodes %s%n",
                names.size(), settled.stream().filter(s -> !s.acknowledged()).count(), byNode.keySet());
    }
}

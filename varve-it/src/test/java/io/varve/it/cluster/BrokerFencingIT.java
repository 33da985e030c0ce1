package io.varve.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A broker that stops heartbeating (SIGSTOP) for longer than {@code broker.session.timeout.ms} is fenced by the
 * active controller, which takes leadership of its partitions away (the Metadata every node answers shows no leader
 * for a partition hosted on it alone); after SIGCONT its heartbeats unfence it and it leads that partition again.
 */
class BrokerFencingIT {
    private static final String SESSION_TIMEOUT_MS = "3000";
    private static final Duration FENCE_BOUND = Duration.ofSeconds(20);

    private ClusterProcesses cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aCombinedNodePausedPastTheSessionTimeoutIsFencedAndUnfencedWhenItHeartbeatsAgain() throws Exception {
        cluster = ClusterProcesses.combined(3)
                .override("broker.session.timeout.ms", SESSION_TIMEOUT_MS)
                .override("broker.heartbeat.interval.ms", "500")
                .start(ClusterProcesses.workDir("BrokerFencingIT-combined"));
        QuorumView quorum = cluster.awaitLeader(ControllerKillIT.BOUND);
        ClusterNode leader = cluster.node(quorum.leaderId());
        ClusterNode paused = cluster.liveControllersExcept(leader).get(0);
        fencedWhilePausedAndUnfencedAfter(leader, paused);
    }

    @Test
    void aBrokerPausedPastTheSessionTimeoutIsFencedAndUnfencedWhenItHeartbeatsAgain() throws Exception {
        cluster = ClusterProcesses.split(3, 3)
                .override("broker.session.timeout.ms", SESSION_TIMEOUT_MS)
                .override("broker.heartbeat.interval.ms", "500")
                .start(ClusterProcesses.workDir("BrokerFencingIT-split"));
        cluster.awaitLeader(ControllerKillIT.BOUND);
        ClusterNode observer = cluster.brokers().get(0);
        ClusterNode paused = cluster.brokers().get(1);
        fencedWhilePausedAndUnfencedAfter(observer, paused);
    }

    /**
     * A killed process's sockets are closed by its kernel: the controller sees the broker's heartbeat connection close
     * and fences it after its heartbeat interval plus a grace, long before a session timeout of 30 s would.
     */
    @Test
    void aKilledBrokerIsFencedSoonAfterItsHeartbeatConnectionClosesNotAfterTheSessionTimeout() throws Exception {
        cluster = ClusterProcesses.combined(3)
                .override("broker.session.timeout.ms", "30000")
                .override("broker.heartbeat.interval.ms", "500")
                .start(ClusterProcesses.workDir("BrokerFencingIT-killed"));
        QuorumView quorum = cluster.awaitLeader(ControllerKillIT.BOUND);
        ClusterNode leader = cluster.node(quorum.leaderId());
        ClusterNode killed = cluster.liveControllersExcept(leader).get(0);
        String topic = onBrokerAlone(leader, killed);
        long killedAt = System.nanoTime();
        killed.kill();
        awaitLeaderOf(leader, topic, -1, Duration.ofSeconds(15));
        System.out.printf(
                "BrokerFencingIT: broker %d fenced %d ms after SIGKILL (session timeout 30,000 ms)%n",
                killed.id(), java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt));
    }

    /** {@code asked} (never paused) creates a topic on {@code paused}'s broker alone and tells its leader throughout. */
    private void fencedWhilePausedAndUnfencedAfter(ClusterNode asked, ClusterNode paused) throws Exception {
        String topic = onBrokerAlone(asked, paused);
        paused.pause();
        awaitLeaderOf(asked, topic, -1, FENCE_BOUND);
        paused.resume();
        awaitLeaderOf(asked, topic, paused.id(), FENCE_BOUND);
        assertThat(paused.isAlive()).isTrue();
    }

    /** Creates, through {@code asked}, a one-partition topic on {@code paused}'s broker alone, led by it. */
    private String onBrokerAlone(ClusterNode asked, ClusterNode paused) {
        await("broker " + paused.id() + " registered")
                .atMost(ControllerKillIT.BOUND)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> NodeRequests.brokerIds(asked)
                        .map(ids -> ids.contains(paused.id()))
                        .orElse(false));
        String topic = "on-broker-" + paused.id();
        await("topic " + topic + " created")
                .atMost(ControllerKillIT.BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> {
                    Errors error =
                            NodeRequests.createTopicOnBrokerOnce(asked, topic, paused.id(), Duration.ofSeconds(5));
                    return error == Errors.NONE || error == Errors.TOPIC_ALREADY_EXISTS;
                });
        awaitLeaderOf(asked, topic, paused.id(), ControllerKillIT.BOUND);
        return topic;
    }

    private void awaitLeaderOf(ClusterNode asked, String topic, int leader, Duration bound) {
        await(topic + "-0 led by " + leader + " in the metadata of " + asked)
                .atMost(bound)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> NodeRequests.partitionLeader(asked, topic, 0).equals(Optional.of(leader)));
    }
}

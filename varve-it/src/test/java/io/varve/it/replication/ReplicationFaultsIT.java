package io.varve.it.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import io.varve.it.cluster.PrivateNetwork;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Kafka's durability contract under single faults, on three combined nodes (real processes), a topic of replication
 * factor 3 with {@code min.insync.replicas=2}, and idempotent {@code acks=all} producers recording every
 * acknowledgement ({@link AckLedger}): after each fault every acknowledged record is in the log exactly once and in
 * its producer's order, and the producers ride through leader changes by themselves.
 */
class ReplicationFaultsIT {
    private static final int PARTITIONS = 3;
    /** Faster failure detection than Kafka's 2 s / 9 s, so each fault plays out in seconds. */
    private static final long SESSION_TIMEOUT_MS = 3000;

    private static final Duration BOUND = ReplicatedTopic.BOUND;
    private static final long PROGRESS = 300;

    private ClusterProcesses cluster;
    private AckLedger ledger;

    @AfterEach
    void stop() {
        if (ledger != null) {
            ledger.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static ClusterProcesses.Builder threeNodes() {
        return withTimeouts(ClusterProcesses.combined(3));
    }

    private static ClusterProcesses.Builder withTimeouts(ClusterProcesses.Builder builder) {
        return builder.override("broker.heartbeat.interval.ms", "500")
                .override("broker.session.timeout.ms", Long.toString(SESSION_TIMEOUT_MS))
                .override("default.replication.factor", "3")
                .override("min.insync.replicas", "2");
    }

    private ReplicatedTopic startWithLedger(String testName, ClusterProcesses.Builder builder, int partitions)
            throws IOException {
        cluster = builder.start(ClusterProcesses.workDir(testName));
        ReplicatedTopic topic =
                ReplicatedTopic.create(cluster, "acked", partitions, Map.of("min.insync.replicas", "2"));
        ledger = AckLedger.start(topic.bootstrap(), topic.name(), partitions);
        awaitProgress("before the fault");
        return topic;
    }

    /** Waits until the producers got {@link #PROGRESS} more acknowledgements than they had. */
    private void awaitProgress(String when) {
        long from = ledger.acknowledged();
        await("the producers get " + PROGRESS + " more acknowledgements " + when + " (from " + from + ")")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(100))
                .failFast(() ->
                        ledger.lastFailure() instanceof org.apache.kafka.common.errors.OutOfOrderSequenceException)
                .until(() -> ledger.acknowledged() >= from + PROGRESS);
    }

    private void finishAndVerify(ReplicatedTopic topic) throws InterruptedException {
        topic.awaitIsrSize(3);
        awaitProgress("with the whole ISR back");
        ledger.stop(Duration.ofMinutes(3));
        long read = ledger.verify(topic.bootstrap(), BOUND);
        System.out.printf(
                "%s: %d acknowledged, %d failed sends, %d records read%n",
                getClass().getSimpleName(), ledger.acknowledged(), ledger.failures(), read);
        assertThat(read).isGreaterThanOrEqualTo(ledger.acknowledged());
    }

    @Test
    void acknowledgedRecordsSurviveTheLeaderKilledAndTheNextLeaderKilledAfterIt() throws Exception {
        ReplicatedTopic topic = startWithLedger("TwoKillsIT", threeNodes(), PARTITIONS);
        ClusterNode first = cluster.node(topic.leader(0));
        first.kill();
        int successor = topic.awaitLeaderOtherThan(0, first.id());
        awaitProgress("after node " + first.id() + " was killed");

        ClusterNode second = cluster.node(successor);
        second.kill();
        // Two of three nodes are down: no ISR of two exists and the controller quorum has no majority. Nothing can be
        // acknowledged until a node returns; bring the first back, then the second.
        first.start();
        topic.awaitIsrSize(2);
        awaitProgress("with node " + first.id() + " back and node " + second.id() + " still down");
        second.start();
        finishAndVerify(topic);
    }

    /** Separate controllers (three voters) and three broker processes: the broker leading a partition is killed. */
    @Test
    void acknowledgedRecordsSurviveTheLeadingBrokerKilledWithSeparateControllers() throws Exception {
        ReplicatedTopic topic =
                startWithLedger("SplitRolesLeaderKillIT", withTimeouts(ClusterProcesses.split(3, 3)), PARTITIONS);
        ClusterNode leader = cluster.node(topic.leader(0));
        assertThat(leader.role()).isEqualTo(ClusterNode.Role.BROKER);
        leader.kill();
        topic.awaitLeaderOtherThan(0, leader.id());
        awaitProgress("after broker " + leader.id() + " was killed");
        leader.start();
        finishAndVerify(topic);
    }

    /**
     * With unclean leader election off (the default), a partition whose last in-sync replica died stays offline while
     * only a replica that had left the ISR earlier is back: it is not elected, and nothing is acknowledged, until the
     * replicas that were in sync return; then every acknowledged record is there. Separate controllers, so that the quorum
     * outlives two dead brokers.
     */
    @Test
    void withUncleanElectionOffAPartitionStaysOfflineUntilItsInSyncReplicasReturn() throws Exception {
        ReplicatedTopic topic = startWithLedger("UncleanOffIT", withTimeouts(ClusterProcesses.split(3, 3)), 1);
        ClusterNode last = cluster.node(topic.leader(0));
        List<ClusterNode> followers =
                cluster.brokers().stream().filter(n -> n.id() != last.id()).toList();
        ClusterNode leftEarly = followers.get(0);
        ClusterNode leftLater = followers.get(1);
        leftEarly.kill();
        topic.awaitIsrSize(2);
        leftLater.kill();
        topic.awaitIsrSize(1);
        last.kill();
        long acknowledgedWhileOffline = ledger.acknowledged();
        // No broker is up to answer Metadata until one returns: bring back the replica that left the ISR first.
        leftEarly.start();
        await("partition 0 offline (asked of " + leftEarly.id() + ") once its last in-sync replica " + last.id()
                        + " is fenced")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsMatching(e -> !(e instanceof AssertionError))
                .until(() -> topic.leader(0) == -1);
        long window = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * SESSION_TIMEOUT_MS);
        while (System.nanoTime() < window) {
            assertThat(topic.leader(0))
                    .as("leader of partition 0 while only %d (out of the ISR) is back", leftEarly.id())
                    .isEqualTo(-1);
            Thread.sleep(200); // polling a condition that must hold throughout the window
        }
        assertThat(ledger.acknowledged()).as("acknowledgements while offline").isEqualTo(acknowledgedWhileOffline);
        // Both replicas that were in sync when the ISR fell below min.insync.replicas (the ELR, KIP-966) come back; a
        // SIGKILLed one re-registers without a clean shutdown, so it returns as a last-known eligible replica, which
        // is elected once no eligible replica is left in the ELR.
        last.start();
        leftLater.start();
        topic.awaitLeaderOtherThan(0, -1);
        finishAndVerify(topic);
    }

    /**
     * A partition of two replicas is moved, under load, to a set that drops its leader: the new replica catches up
     * while the producers go on, the reassignment completes, leadership moves to a remaining replica, and every
     * acknowledged record is there.
     */
    @Test
    void aReassignmentUnderLoadThatDropsTheLeaderLosesNoAcknowledgedRecord() throws Exception {
        cluster = threeNodes().start(ClusterProcesses.workDir("ReassignmentUnderLoadIT"));
        ReplicatedTopic topic =
                ReplicatedTopic.create(cluster, "acked", 1, (short) 2, Map.of("min.insync.replicas", "1"));
        ledger = AckLedger.start(topic.bootstrap(), topic.name(), 1);
        awaitProgress("before the reassignment");
        org.apache.kafka.common.TopicPartitionInfo before = topic.describe().get(0);
        int leader = before.leader().id();
        int kept = before.replicas().stream()
                .mapToInt(n -> n.id())
                .filter(id -> id != leader)
                .findFirst()
                .orElseThrow();
        int added = cluster.nodes().stream()
                .mapToInt(ClusterNode::id)
                .filter(id -> id != leader && id != kept)
                .findFirst()
                .orElseThrow();
        topic.admin()
                .alterPartitionReassignments(Map.of(
                        new TopicPartition(topic.name(), 0),
                        java.util.Optional.of(
                                new org.apache.kafka.clients.admin.NewPartitionReassignment(List.of(added, kept)))))
                .all()
                .get(30, TimeUnit.SECONDS);
        await("partition 0 moved to [" + added + ", " + kept + "] and no longer led by " + leader)
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsMatching(e -> !(e instanceof AssertionError))
                .until(() -> {
                    org.apache.kafka.common.TopicPartitionInfo now =
                            topic.describe().get(0);
                    return now.replicas().stream()
                                    .map(n -> n.id())
                                    .sorted()
                                    .toList()
                                    .equals(java.util.stream.Stream.of(added, kept)
                                            .sorted()
                                            .toList())
                            && now.leader() != null
                            && now.leader().id() != leader;
                });
        awaitProgress("after the reassignment");
        ledger.stop(Duration.ofMinutes(3));
        long read = ledger.verify(topic.bootstrap(), BOUND);
        assertThat(read).isGreaterThanOrEqualTo(ledger.acknowledged());
    }

    @Test
    void aLeaderPausedPastTheSessionTimeoutIsReplacedAndAcknowledgesNothingItCannotCommit() throws Exception {
        ReplicatedTopic topic = startWithLedger("PausedLeaderIT", threeNodes(), PARTITIONS);
        ClusterNode paused = cluster.node(topic.leader(0));
        long pausedAt = System.nanoTime();
        paused.pause();
        topic.awaitLeaderOtherThan(0, paused.id());
        awaitProgress("while node " + paused.id() + " is paused");
        long pausedForMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
        if (pausedForMs < 2 * SESSION_TIMEOUT_MS) {
            // The fault must outlast the session timeout twice over: a duration of the fault, not a synchronisation.
            Thread.sleep(2 * SESSION_TIMEOUT_MS - pausedForMs);
        }
        paused.resume();
        finishAndVerify(topic);
    }

    @Test
    void aLeaderCutOffFromTheClusterAndItsClientsAcknowledgesNothingAndRejoinsWhenHealed() throws Exception {
        String reason = PrivateNetwork.unavailableReason();
        Assumptions.assumeTrue(reason == null, reason);
        ReplicatedTopic topic = startWithLedger("IsolatedLeaderIT", threeNodes().inNetworkNamespaces(), PARTITIONS);
        ClusterNode isolated = cluster.node(topic.leader(0));
        cluster.isolateCompletely(isolated);
        topic.awaitLeaderOtherThan(0, isolated.id());
        awaitProgress("while node " + isolated.id() + " is cut off");
        cluster.heal();
        finishAndVerify(topic);
    }

    @Test
    void acknowledgedRecordsSurviveAllThreeNodesKilledAtOnceAndRestarted() throws Exception {
        ReplicatedTopic topic = startWithLedger("AllKilledIT", threeNodes(), PARTITIONS);
        for (ClusterNode node : cluster.nodes()) {
            node.kill();
        }
        for (ClusterNode node : cluster.nodes()) {
            node.start();
        }
        finishAndVerify(topic);
    }

    /**
     * The followers are paused while the leader takes {@code acks=1} records only it holds; the leader is killed and a
     * follower takes over; when the old leader returns it truncates that divergent suffix (leader epochs) and the
     * three replicas' logs end up byte for byte the same, without those records.
     */
    @Test
    void aReturningLeaderTruncatesItsDivergentSuffixAndTheReplicasConverge() throws Exception {
        ReplicatedTopic topic = startWithLedger("DivergentLogsIT", threeNodes(), 1);
        ClusterNode leader = cluster.node(topic.leader(0));
        List<ClusterNode> followers =
                cluster.nodes().stream().filter(n -> n.id() != leader.id()).toList();
        for (ClusterNode follower : followers) {
            follower.pause();
        }
        int divergent = 50;
        try (KafkaProducer<byte[], byte[]> acksOne = new KafkaProducer<>(acksOneProps(leader.bootstrap()))) {
            for (int i = 0; i < divergent; i++) {
                acksOne.send(new ProducerRecord<>(
                                topic.name(), 0, null, ("divergent:" + i).getBytes(StandardCharsets.UTF_8)))
                        .get(30, TimeUnit.SECONDS);
            }
        }
        leader.kill();
        for (ClusterNode follower : followers) {
            follower.resume();
        }
        topic.awaitLeaderOtherThan(0, leader.id());
        awaitProgress("after the leader holding a divergent suffix was killed");
        leader.start();
        finishAndVerify(topic);
        assertThat(readValues(topic))
                .as("records only the killed leader held")
                .noneMatch(v -> v.startsWith("divergent:"));

        for (ClusterNode node : cluster.nodes()) {
            assertThat(node.stop(Duration.ofSeconds(60)))
                    .as("%s stopped cleanly", node)
                    .isTrue();
        }
        List<String> digests = new ArrayList<>();
        for (ClusterNode node : cluster.nodes()) {
            digests.add(node.id() + "=" + logDigest(node.dataDir().resolve(topic.name() + "-0")));
        }
        assertThat(digests.stream().map(d -> d.substring(d.indexOf('=') + 1)).distinct())
                .as("the replicas' record bytes (all .log segments in offset order): %s", digests)
                .hasSize(1);
    }

    private static Properties acksOneProps(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        return p;
    }

    private static List<String> readValues(ReplicatedTopic topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, topic.bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            TopicPartition tp = new TopicPartition(topic.name(), 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), BOUND).get(tp);
            long deadline = System.nanoTime() + BOUND.toNanos();
            while (consumer.position(tp) < end) {
                assertThat(System.nanoTime())
                        .as("read up to %d within %s", end, BOUND)
                        .isLessThan(deadline);
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(new String(record.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return values;
    }

    /** SHA-256 of the partition's record bytes: every {@code .log} segment, in base-offset order, concatenated. */
    private static String logDigest(Path partitionDir) throws Exception {
        java.security.MessageDigest digest = java.security.MessageDigest.getInstance("SHA-256");
        List<Path> segments;
        try (Stream<Path> files = Files.list(partitionDir)) {
            segments = files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .sorted(Comparator.comparing(f -> f.getFileName().toString()))
                    .toList();
        }
        try (OutputStream sink = new java.security.DigestOutputStream(OutputStream.nullOutputStream(), digest)) {
            for (Path segment : segments) {
                Files.copy(segment, sink);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}

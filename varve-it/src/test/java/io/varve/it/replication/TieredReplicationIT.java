package io.varve.it.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tiered storage in a cluster: three combined nodes sharing one filesystem remote tier, a topic of three replicas
 * with {@code remote.storage.enable=true}, 1 MiB segments and a tiny {@code local.retention.bytes}. Only the leader
 * uploads; followers free their local copies of what it uploaded; after SIGKILL of the leader the new leader keeps
 * uploading from where it stopped (no offset range uploaded twice, no orphaned objects), every acknowledged record
 * is read back from offset 0 exactly once, and the killed broker catches up by the KIP-405 follower path (state from
 * the remote tier, nothing copied back) and rejoins the ISR, then leads with every offset readable; deleting the
 * topic deletes its remote data.
 */
class TieredReplicationIT {
    private static final Duration BOUND = Duration.ofSeconds(90);
    private static final String TOPIC = "tiered-replicated";
    private static final String PADDING = "x".repeat(1000);

    private static ClusterProcesses cluster;
    private static Path remoteDir;
    private static ReplicatedTopic tiered;

    @BeforeAll
    static void startCluster() throws Exception {
        Path workDir = ClusterProcesses.workDir("TieredReplicationIT");
        remoteDir = Files.createDirectories(workDir.resolve("remote"));
        cluster = ClusterProcesses.combined(3)
                .override("broker.session.timeout.ms", "3000")
                .override("broker.heartbeat.interval.ms", "500")
                .override("replica.lag.time.max.ms", "4000")
                .override("replica.fetch.wait.max.ms", "200")
                .override("replica.fetch.backoff.ms", "200")
                .override("rsm.config.fs.root.dir", remoteDir.toString())
                .override("remote.log.manager.task.interval.ms", "300")
                .override("log.retention.check.interval.ms", "300")
                .start(workDir);
        cluster.awaitLeader(BOUND);
        cluster.awaitBrokers(3, BOUND);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aNewLeaderKeepsUploadingWithoutDuplicatesOrOrphansAndEveryOffsetIsReadFromZero() throws Exception {
        tiered = createTopic();
        List<String> acknowledged = Collections.synchronizedList(new ArrayList<>());
        produce(0, 4000, acknowledged);
        await("segments offloaded by the first leader")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .until(() -> finishedSegments().size() >= 2);
        ClusterNode leader = cluster.node(tiered.partition(0).leader().id());
        List<ClusterNode> followers =
                cluster.nodes().stream().filter(n -> n != leader).toList();
        for (ClusterNode follower : followers) {
            await("follower " + follower.id() + " freed local segments the leader uploaded")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(300))
                    .until(() -> firstLocalSegment(follower) > 0);
        }

        leader.kill();
        tiered.awaitLeaderOtherThan(0, leader.id());
        long uploadedBefore = highestUploadedEnd();
        produce(4000, 4000, acknowledged);
        await("the new leader uploads past where the old one stopped")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .until(() -> highestUploadedEnd() > uploadedBefore + 1000);
        await("no orphaned objects and no unfinished copies left")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .until(() -> segmentObjectIds().equals(finishedSegments().keySet())
                        && journalStates().values().stream().allMatch(s -> s.contains("copy_finished")));
        List<Long> starts = new ArrayList<>(finishedSegments().values());
        assertThat(new HashSet<>(starts)).as("no offset range uploaded twice").hasSize(starts.size());

        List<String> read = readAll();
        assertThat(new HashSet<>(read)).as("no duplicates").hasSize(read.size());
        assertThat(read).as("every acknowledged record, from offset 0").containsAll(acknowledged);

        ClusterNode newLeader = cluster.node(tiered.partition(0).leader().id());
        await("the new leader's local log starts past everything the killed broker holds")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .until(() -> firstLocalSegment(newLeader) > 4000);
        leader.start();
        await("broker " + leader.id() + " back in the ISR")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .ignoreExceptions()
                .until(() -> tiered.partition(0).isr().stream()
                        .map(Node::id)
                        .collect(Collectors.toSet())
                        .contains(leader.id()));
        assertThat(leader.logTail(5000))
                .as("the restarted broker built its state from the remote tier (OFFSET_MOVED_TO_TIERED_STORAGE)")
                .contains("below which the remote tier holds its data");
        assertThat(firstLocalSegment(leader))
                .as("it did not copy what the remote tier holds")
                .isGreaterThan(4000);

        // the restarted broker now leads: it serves every offset from 0, the old ones from the remote tier
        newLeader.kill();
        tiered.awaitLeaderOtherThan(0, newLeader.id());
        List<String> again = readAll();
        assertThat(new HashSet<>(again))
                .as("no duplicates after the second fail-over")
                .hasSize(again.size());
        assertThat(again)
                .as("every acknowledged record after the second fail-over")
                .containsAll(acknowledged);
        newLeader.start();

        // deleting the topic (seen in the metadata, not from a missing log) deletes its remote data and journal
        tiered.admin().deleteTopics(List.of(TOPIC)).all().get(30, TimeUnit.SECONDS);
        await("the deleted topic's remote segments and metadata are gone")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .until(() -> segmentObjectIds().isEmpty() && journalStates().isEmpty());
    }

    private static void produce(int from, int count, List<String> acknowledged) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int i = from; i < from + count; i++) {
                String value = "record-" + i + "-" + PADDING;
                producer.send(new ProducerRecord<>(TOPIC, value), (m, e) -> {
                    if (e == null) {
                        acknowledged.add(value);
                    }
                });
            }
            producer.flush();
        }
        assertThat(acknowledged).hasSizeGreaterThanOrEqualTo(from + count);
    }

    private static List<String> readAll() {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            await("read to offset " + end).atMost(BOUND).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (read.isEmpty()) {
                        assertThat(r.offset())
                                .as("the first record read is offset 0")
                                .isZero();
                    }
                    read.add(r.value());
                }
                return consumer.position(tp) >= end;
            });
        }
        return read;
    }

    /** The partition's directory in the remote tier. */
    private static Path remotePartitionDir() throws IOException {
        try (Stream<Path> dirs = Files.list(remoteDir)) {
            Path topicDir = dirs.filter(d -> d.getFileName().toString().startsWith(TOPIC + "-"))
                    .findFirst()
                    .orElse(null);
            return topicDir == null ? null : topicDir.resolve("0");
        }
    }

    /** Segment id → start offset of the segment objects ({@code <start>-<id>.log}) in the remote tier. */
    private static Set<String> segmentObjectIds() throws IOException {
        Path dir = remotePartitionDir();
        if (dir == null || !Files.isDirectory(dir)) {
            return Set.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".log"))
                    .map(n -> n.substring(21, n.length() - 4))
                    .collect(Collectors.toCollection(LinkedHashSet::new));
        }
    }

    /** Segment id → the journal's markers of it. */
    private static Map<String, Set<String>> journalStates() throws IOException {
        Path dir = remotePartitionDir();
        Map<String, Set<String>> states = new TreeMap<>();
        if (dir == null || !Files.isDirectory(dir.resolve("metadata"))) {
            return states;
        }
        try (Stream<Path> files = Files.list(dir.resolve("metadata"))) {
            files.map(p -> p.getFileName().toString())
                    .filter(n -> !n.contains(".tmp-"))
                    .forEach(n -> states.computeIfAbsent(n.substring(21, n.lastIndexOf('.')), k -> new HashSet<>())
                            .add(n.substring(n.lastIndexOf('.') + 1)));
        }
        return states;
    }

    /** Segment id → start offset of the segments the journal says are copied. */
    private static Map<String, Long> finishedSegments() throws IOException {
        Path dir = remotePartitionDir();
        Map<String, Long> finished = new TreeMap<>();
        if (dir == null || !Files.isDirectory(dir.resolve("metadata"))) {
            return finished;
        }
        try (Stream<Path> files = Files.list(dir.resolve("metadata"))) {
            files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".copy_finished"))
                    .forEach(
                            n -> finished.put(n.substring(21, n.lastIndexOf('.')), Long.parseLong(n.substring(0, 20))));
        }
        return finished;
    }

    /** The start offset of the last uploaded segment (its end is at least 1000 offsets further on). */
    private static long highestUploadedEnd() throws IOException {
        return finishedSegments().values().stream()
                .mapToLong(Long::longValue)
                .max()
                .orElse(-1);
    }

    /** The base offset of the first local segment of the partition on {@code node}. */
    private static long firstLocalSegment(ClusterNode node) throws IOException {
        Path dir = node.dataDir().resolve(TOPIC + "-0");
        if (!Files.isDirectory(dir)) {
            return -1;
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".log") && n.length() == 24)
                    .mapToLong(n -> Long.parseLong(n.substring(0, 20)))
                    .min()
                    .orElse(-1);
        }
    }

    private static ReplicatedTopic createTopic() {
        NewTopic topic = new NewTopic(TOPIC, 1, (short) 3)
                .configs(Map.of(
                        "min.insync.replicas", "2",
                        "remote.storage.enable", "true",
                        "segment.bytes", Integer.toString(1024 * 1024),
                        "local.retention.bytes", "1",
                        "retention.ms", "-1"));
        return ReplicatedTopic.create(cluster, topic);
    }

    private static String bootstrap() {
        return ReplicatedTopic.bootstrap(cluster.brokers());
    }
}

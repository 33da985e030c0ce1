package io.varve.it.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.varve.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log dir on a small filesystem the test mounts (tmpfs with a size; needs root, as CI runs) fills up while acks=all
 * producers write: produce to its partitions fails with KAFKA_STORAGE_ERROR, the dir is reported offline, partitions in
 * other dirs keep working, a node with no dir left stops with one sentence — and after the space is freed and the node
 * restarts, every acknowledged record is served.
 */
class DiskFullIT {

    private static final int VALUE_BYTES = 8 * 1024;

    @TempDir
    Path work;

    private Path small;
    private boolean mounted;

    @BeforeEach
    void mountSmallFilesystem() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root (CI runs as root)");
        small = work.resolve("small");
        Files.createDirectories(small);
        run("mount", "-t", "tmpfs", "-o", "size=8m", "varve-full-test", small.toString());
        mounted = true;
    }

    @AfterEach
    void unmount() throws Exception {
        if (mounted) {
            run("umount", "-l", small.toString());
        }
    }

    @Test
    void aFullLogDirGoesOfflineItsPartitionsAnswerKafkaStorageErrorAndNothingAcknowledgedIsLost() throws Exception {
        Path big = work.resolve("big");
        Map<TopicPartition, Map<Long, String>> acked = new HashMap<>();
        int port = ServerProcess.freePort();
        String[] args = serverArgs(port, small + "," + big);
        List<Integer> onSmall = new ArrayList<>();
        List<Integer> onBig = new ArrayList<>();
        try (ServerProcess server =
                        ServerProcess.start(work, "two-dirs", port, args).awaitReady();
                Admin admin = admin(server)) {
            admin.createTopics(List.of(new NewTopic("filling", 4, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            // CreateTopics is answered before the node has made the logs (as Kafka's): wait for all four
            org.awaitility.Awaitility.await("the four logs of the new topic")
                    .atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> {
                        onSmall.clear();
                        onBig.clear();
                        Map<String, LogDirDescription> dirs = logDirs(admin);
                        dirs.get(small.toString()).replicaInfos().keySet().forEach(tp -> {
                            if (tp.topic().equals("filling")) {
                                onSmall.add(tp.partition());
                            }
                        });
                        dirs.get(big.toString()).replicaInfos().keySet().forEach(tp -> {
                            if (tp.topic().equals("filling")) {
                                onBig.add(tp.partition());
                            }
                        });
                        return onSmall.size() + onBig.size() == 4;
                    });
            assertThat(onSmall).isNotEmpty();
            assertThat(onBig).isNotEmpty();

            try (KafkaProducer<byte[], byte[]> producer = producer(server)) {
                KafkaStorageException failure = fillUntilFailure(producer, onSmall, acked);
                assertThat(failure)
                        .as("a full log dir answers KAFKA_STORAGE_ERROR")
                        .isNotNull();
                // the failed dir is reported; the other dir still takes writes
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                                logDirs(admin).get(small.toString()).error())
                        .isInstanceOf(KafkaStorageException.class));
                assertThat(logDirs(admin).get(big.toString()).error()).isNull();
                for (int p : onBig) {
                    send(producer, p, "after-the-fault-" + p, acked);
                }
                for (int p : onSmall) {
                    assertThat(sendFailure(producer, p)).isInstanceOf(KafkaStorageException.class);
                }
            }
            assertThat(server.process().isAlive()).isTrue();
            assertThat(server.terminate(Duration.ofSeconds(30))).isTrue();
        }

        run("mount", "-o", "remount,size=64m", small.toString());
        try (ServerProcess restarted =
                ServerProcess.start(work, "two-dirs-again", port, args).awaitReady()) {
            assertEveryAckedRecordIsServed(restarted, acked);
        }
    }

    @Test
    void aNodeWhoseOnlyLogDirFailsStopsWithOneSentenceAndServesEverythingAfterARestart() throws Exception {
        Map<TopicPartition, Map<Long, String>> acked = new HashMap<>();
        int port = ServerProcess.freePort();
        String[] args = serverArgs(port, small.toString());
        try (ServerProcess server =
                        ServerProcess.start(work, "one-dir", port, args).awaitReady();
                Admin admin = admin(server)) {
            admin.createTopics(List.of(new NewTopic("filling", 2, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            try (KafkaProducer<byte[], byte[]> producer = producer(server)) {
                fillUntilFailure(producer, List.of(0, 1), acked);
            }
            assertThat(server.process().waitFor(30, TimeUnit.SECONDS))
                    .as("the node stops once its only log dir failed")
                    .isTrue();
            assertThat(server.process().exitValue()).isNotZero();
            assertThat(server.output()).contains("varve: every log directory has failed");
        }
        assertThat(acked.values().stream().mapToInt(Map::size).sum()).isPositive();

        run("mount", "-o", "remount,size=64m", small.toString());
        try (ServerProcess restarted =
                ServerProcess.start(work, "one-dir-again", port, args).awaitReady()) {
            assertEveryAckedRecordIsServed(restarted, acked);
        }
    }

    private String[] serverArgs(int port, String logDirs) {
        return new String[] {
            "--override", "listeners=PLAINTEXT://127.0.0.1:" + port,
            "--override", "log.dirs=" + logDirs,
            "--override", "metadata.log.dir=" + work.resolve("metadata"),
            "--override", "remote.log.storage.system.enable=false",
            "--override", "log.segment.bytes=1048576"
        };
    }

    /** Sends to {@code partitions} in turn until a send fails; returns that failure (null if none in the bound). */
    private static KafkaStorageException fillUntilFailure(
            KafkaProducer<byte[], byte[]> producer,
            List<Integer> partitions,
            Map<TopicPartition, Map<Long, String>> acked)
            throws Exception {
        for (int i = 0; i < 4000; i++) {
            int partition = partitions.get(i % partitions.size());
            Throwable failure = sendFailure(producer, partition, "v" + i, acked);
            if (failure != null) {
                assertThat(failure).isInstanceOf(KafkaStorageException.class);
                return (KafkaStorageException) failure;
            }
        }
        return null;
    }

    private static void send(
            KafkaProducer<byte[], byte[]> producer,
            int partition,
            String tag,
            Map<TopicPartition, Map<Long, String>> acked)
            throws Exception {
        assertThat(sendFailure(producer, partition, tag, acked)).isNull();
    }

    private static Throwable sendFailure(KafkaProducer<byte[], byte[]> producer, int partition) throws Exception {
        return sendFailure(producer, partition, "probe", new HashMap<>());
    }

    /** One acks=all send; records it as acknowledged on success, returns the failure otherwise. */
    private static Throwable sendFailure(
            KafkaProducer<byte[], byte[]> producer,
            int partition,
            String tag,
            Map<TopicPartition, Map<Long, String>> acked)
            throws Exception {
        String value = tag + ":" + "x".repeat(VALUE_BYTES);
        try {
            RecordMetadata m = producer.send(new ProducerRecord<>("filling", partition, null, value.getBytes(UTF_8)))
                    .get(30, TimeUnit.SECONDS);
            acked.computeIfAbsent(new TopicPartition("filling", partition), tp -> new HashMap<>())
                    .put(m.offset(), value);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static void assertEveryAckedRecordIsServed(
            ServerProcess server, Map<TopicPartition, Map<Long, String>> acked) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        Map<TopicPartition, Map<Long, String>> read = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
            List<TopicPartition> tps = new ArrayList<>(acked.keySet());
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!containsAll(read, acked) && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    read.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), tp -> new HashMap<>())
                            .put(r.offset(), new String(r.value(), UTF_8));
                }
            }
        }
        acked.forEach((tp, records) -> assertThat(read.getOrDefault(tp, Map.of()))
                .as("acknowledged records of " + tp)
                .containsAllEntriesOf(records));
    }

    private static boolean containsAll(
            Map<TopicPartition, Map<Long, String>> read, Map<TopicPartition, Map<Long, String>> acked) {
        for (Map.Entry<TopicPartition, Map<Long, String>> e : acked.entrySet()) {
            if (!read.getOrDefault(e.getKey(), Map.of())
                    .keySet()
                    .containsAll(e.getValue().keySet())) {
                return false;
            }
        }
        return true;
    }

    private static Map<String, LogDirDescription> logDirs(Admin admin) throws Exception {
        return admin.describeLogDirs(List.of(1))
                .allDescriptions()
                .get(10, TimeUnit.SECONDS)
                .get(1);
    }

    private static Admin admin(ServerProcess server) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap()));
    }

    private static KafkaProducer<byte[], byte[]> producer(ServerProcess server) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        // each failure is seen as it is: no retry hides KAFKA_STORAGE_ERROR behind a delivery timeout
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.RETRIES_CONFIG, "0");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        return new KafkaProducer<>(p);
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), UTF_8);
        assertThat(p.waitFor()).as(Arrays.toString(command) + ": " + out).isZero();
    }
}

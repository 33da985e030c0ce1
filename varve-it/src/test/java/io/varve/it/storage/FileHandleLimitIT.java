package io.varve.it.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.varve.it.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node under a low open-file limit (set with {@code prlimit}) holding more partitions than the limit has descriptors:
 * every partition keeps working because segment files hold a descriptor only while in use, within a budget; when the
 * process really runs out (its limit lowered below what it holds), partitions and new topics answer a retriable error
 * and nothing is deleted; once the limit is raised again everything opens without a restart.
 */
class FileHandleLimitIT {

    private static final int SOFT_LIMIT = 1200;
    private static final int HARD_LIMIT = 20_000;
    private static final int PARTITIONS = 1500;

    @TempDir
    Path work;

    @Test
    void morePartitionsThanDescriptorsWorkAndRunningOutIsRetriableAndRecoversWithoutARestart() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/prlimit")), "prlimit (util-linux) is not installed");
        assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "needs /proc");
        Path data = work.resolve("data");
        int port = ServerProcess.freePort();
        try (ServerProcess server = ServerProcess.start(
                        List.of("/usr/bin/prlimit", "--nofile=" + SOFT_LIMIT + ":" + HARD_LIMIT, "--"),
                        // HotSpot raises its soft limit to the hard one at start unless told not to
                        List.of("-XX:-MaxFDLimit"),
                        work,
                        "limited",
                        port,
                        "--override",
                        "listeners=PLAINTEXT://127.0.0.1:" + port,
                        "--override",
                        "log.dirs=" + data)
                .awaitReady()) {
            long pid = server.process().pid();
            try (Admin admin = admin(server)) {
                // 1. More partitions than the limit has descriptors: all of them take records and serve them.
                admin.createTopics(List.of(new NewTopic("wide", PARTITIONS, (short) 1)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
                try (KafkaProducer<byte[], byte[]> producer = producer(server, Map.of())) {
                    List<Future<RecordMetadata>> sent = new ArrayList<>();
                    for (int p = 0; p < PARTITIONS; p++) {
                        sent.add(producer.send(new ProducerRecord<>("wide", p, null, ("r" + p).getBytes(UTF_8))));
                    }
                    for (Future<RecordMetadata> f : sent) {
                        assertThat(f.get(60, TimeUnit.SECONDS).offset()).isZero();
                    }
                }
                assertThat(openDescriptors(pid)).isLessThan(SOFT_LIMIT);
                assertThat(readOnePerPartition(server, "wide", PARTITIONS)).hasSize(PARTITIONS);
                Set<String> filesBefore = segmentFiles(data);

                // 2. The process runs out: its limit drops below what it holds.
                try (KafkaProducer<byte[], byte[]> producer = producer(
                        server,
                        Map.of(
                                ProducerConfig.RETRIES_CONFIG,
                                "0",
                                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                                "false",
                                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                                "20000",
                                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                                "15000"))) {
                    producer.send(new ProducerRecord<>("wide", 0, null, "connect".getBytes(UTF_8)))
                            .get(30, TimeUnit.SECONDS);
                    long held = openDescriptors(pid);
                    prlimit(pid, Math.max(64, held / 2), HARD_LIMIT);
                    admin.createTopics(List.of(new NewTopic("later", 3, (short) 1)))
                            .all()
                            .get(30, TimeUnit.SECONDS);
                    int retriable = 0;
                    int acked = 0;
                    for (int p = 0; p < 3; p++) {
                        try {
                            producer.send(new ProducerRecord<>("later", p, null, "x".getBytes(UTF_8)))
                                    .get(30, TimeUnit.SECONDS);
                            acked++;
                        } catch (ExecutionException e) {
                            assertThat(e.getCause())
                                    .as("a partition without a descriptor answers a retriable error")
                                    .isInstanceOf(RetriableException.class);
                            retriable++;
                        }
                    }
                    assertThat(retriable)
                            .as("new partitions cannot open a file now")
                            .isPositive();
                    assertThat(acked + retriable).isEqualTo(3);
                    assertThat(server.process().isAlive()).isTrue();

                    // 3. The limit is raised again: the new topic and every old partition work, no restart.
                    prlimit(pid, HARD_LIMIT, HARD_LIMIT);
                }
                try (KafkaProducer<byte[], byte[]> producer = producer(server, Map.of())) {
                    await().atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofMillis(200))
                            .ignoreExceptions()
                            .until(() -> {
                                for (int p = 0; p < 3; p++) {
                                    producer.send(new ProducerRecord<>("later", p, null, "y".getBytes(UTF_8)))
                                            .get(10, TimeUnit.SECONDS);
                                }
                                return true;
                            });
                    List<Future<RecordMetadata>> sent = new ArrayList<>();
                    for (int p = 0; p < PARTITIONS; p++) {
                        sent.add(producer.send(new ProducerRecord<>("wide", p, null, ("s" + p).getBytes(UTF_8))));
                    }
                    for (Future<RecordMetadata> f : sent) {
                        f.get(60, TimeUnit.SECONDS);
                    }
                }
                admin.createTopics(List.of(new NewTopic("after", 3, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                try (KafkaProducer<byte[], byte[]> producer = producer(server, Map.of())) {
                    for (int p = 0; p < 3; p++) {
                        producer.send(new ProducerRecord<>("after", p, null, "z".getBytes(UTF_8)))
                                .get(30, TimeUnit.SECONDS);
                    }
                }
                assertThat(readOnePerPartition(server, "wide", PARTITIONS))
                        .as("the first record of every partition is still there")
                        .hasSize(PARTITIONS);
                Set<String> filesAfter = segmentFiles(data);
                assertThat(filesAfter).as("no segment file was deleted").containsAll(filesBefore);
            }
            assertThat(server.output())
                    .doesNotContain("deleting unreadable")
                    .doesNotContain("goes offline")
                    .doesNotContain("failed on the image");
        }
    }

    private static void prlimit(long pid, long soft, long hard) throws Exception {
        Process p = new ProcessBuilder("/usr/bin/prlimit", "--pid", Long.toString(pid), "--nofile=" + soft + ":" + hard)
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), UTF_8);
        assertThat(p.waitFor()).as("prlimit: " + out).isZero();
    }

    private static long openDescriptors(long pid) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return fds.count();
        }
    }

    private static Set<String> segmentFiles(Path data) throws IOException {
        try (Stream<Path> files = Files.walk(data)) {
            return files.filter(f -> {
                        String name = f.getFileName().toString();
                        return name.endsWith(".log") || name.endsWith(".index") || name.endsWith(".timeindex");
                    })
                    .map(f -> data.relativize(f).toString())
                    .collect(java.util.stream.Collectors.toCollection(TreeSet::new));
        }
    }

    private static Admin admin(ServerProcess server) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap()));
    }

    private static KafkaProducer<byte[], byte[]> producer(ServerProcess server, Map<String, String> overrides) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.putAll(overrides);
        return new KafkaProducer<>(p);
    }

    /** The first record of each partition, read from offset 0. */
    private static Map<Integer, String> readOnePerPartition(ServerProcess server, String topic, int partitions) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "1024");
        Map<Integer, String> first = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (first.size() < partitions && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.offset() == 0) {
                        first.putIfAbsent(r.partition(), new String(r.value(), UTF_8));
                    }
                }
            }
        }
        return first;
    }
}

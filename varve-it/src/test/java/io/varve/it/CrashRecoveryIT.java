package io.varve.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker process killed with SIGKILL while acks=all producers write loses no acknowledged record: after each
 * restart every acknowledged record is there once, in send order per partition, a garbage tail written into the
 * active segment is cut off, and every batch on disk passes a full validation scan.
 */
class CrashRecoveryIT {
    private static final String TOPIC = "crash";
    private static final int PARTITIONS = 3;
    private static final int VALUE_BYTES = 1000;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path workDir;

    /** A record the broker acknowledged: partition, offset, and its "round-sequence" value prefix. */
    private record Acked(int partition, long offset, String id) {}

    @Test
    void acknowledgedRecordsSurviveRepeatedKillsAtDifferentPointsAndTornTailsAreTruncated() throws Exception {
        Path logDir = workDir.resolve("data");
        Random random = new Random(20261129L);
        List<Acked> allAcked = new ArrayList<>();
        int[] killAfterAcks = {300, 1500, 4000};
        for (int round = 0; round < killAfterAcks.length; round++) {
            try (ServerProcess server = ServerProcess.startOnFreePort(
                            workDir, "round" + round, logDir, "--override", "log.segment.bytes=1048576")
                    .awaitReady()) {
                if (round == 0) {
                    createTopic(server);
                }
                allAcked.addAll(produceUntilKilled(server, round, killAfterAcks[round]));
            }
            if (round == 1) {
                appendGarbageToActiveSegment(logDir.resolve(TOPIC + "-0"), random);
            }
        }
        try (ServerProcess server =
                ServerProcess.startOnFreePort(workDir, "final", logDir).awaitReady()) {
            Map<Integer, List<String>> read = readAll(server);
            assertEveryAckedRecordPresentOnceInOrder(allAcked, read);
            assertThat(server.terminate(Duration.ofSeconds(10))).isTrue();
        }
        for (int p = 0; p < PARTITIONS; p++) {
            validateLog(logDir.resolve(TOPIC + "-" + p));
        }
    }

    private void createTopic(ServerProcess server) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /** Sends numbered records with acks=all until {@code killAfter} are acknowledged, then SIGKILLs the broker. */
    private List<Acked> produceUntilKilled(ServerProcess server, int round, int killAfter) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "5000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
        ConcurrentLinkedQueue<Acked> acked = new ConcurrentLinkedQueue<>();
        AtomicInteger ackCount = new AtomicInteger();
        byte[] padding = new byte[VALUE_BYTES];
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            int seq = 0;
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (ackCount.get() < killAfter && System.nanoTime() < deadline) {
                String id = round + "-" + seq;
                byte[] value = (id + ":" + new String(padding, UTF_8)).getBytes(UTF_8);
                int partition = seq % PARTITIONS;
                producer.send(new ProducerRecord<>(TOPIC, partition, null, value), (metadata, error) -> {
                    if (error == null) {
                        acked.add(new Acked(metadata.partition(), metadata.offset(), id));
                        ackCount.incrementAndGet();
                    }
                });
                seq++;
            }
            assertThat(ackCount.get()).as("acknowledged before the deadline").isGreaterThanOrEqualTo(killAfter);
            server.kill();
            producer.close(Duration.ZERO);
        }
        return new ArrayList<>(acked);
    }

    private static void appendGarbageToActiveSegment(Path partitionDir, Random random) throws IOException {
        Path active;
        try (Stream<Path> files = Files.list(partitionDir)) {
            active = files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .max(Comparator.comparing(f -> f.getFileName().toString()))
                    .orElseThrow();
        }
        byte[] garbage = new byte[1 + random.nextInt(4000)];
        random.nextBytes(garbage);
        Files.write(active, garbage, StandardOpenOption.APPEND);
    }

    private Map<Integer, List<String>> readAll(ServerProcess server) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<Integer, List<String>> byPartition = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) {
                tps.add(new TopicPartition(TOPIC, i));
                byPartition.put(i, new ArrayList<>());
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            await().atMost(TIMEOUT)
                    .pollInSameThread()
                    .pollInterval(Duration.ZERO)
                    .until(() -> {
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                            String value = new String(r.value(), UTF_8);
                            byPartition.get(r.partition()).add(value.substring(0, value.indexOf(':')));
                        }
                        return tps.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
                    });
        }
        return byPartition;
    }

    private static void assertEveryAckedRecordPresentOnceInOrder(List<Acked> acked, Map<Integer, List<String>> read) {
        for (Map.Entry<Integer, List<String>> e : read.entrySet()) {
            Set<String> seen = new HashSet<>();
            for (String id : e.getValue()) {
                assertThat(seen.add(id))
                        .as("record %s appears once in partition %d", id, e.getKey())
                        .isTrue();
            }
        }
        for (int partition = 0; partition < PARTITIONS; partition++) {
            int p = partition;
            List<String> log = read.get(p);
            List<Acked> ackedHere = acked.stream()
                    .filter(a -> a.partition() == p)
                    .sorted(Comparator.comparingLong(Acked::offset))
                    .toList();
            assertThat(log)
                    .as("partition %d holds every acknowledged record", p)
                    .containsAll(ackedHere.stream().map(Acked::id).toList());
            // Send order per round is kept: within a round, sequence numbers increase along the log.
            Map<String, Integer> lastSeqOfRound = new HashMap<>();
            for (String id : log) {
                String[] parts = id.split("-");
                int seq = Integer.parseInt(parts[1]);
                Integer previous = lastSeqOfRound.put(parts[0], seq);
                assertThat(previous == null || previous < seq)
                        .as("partition %d: %s after seq %s", p, id, previous)
                        .isTrue();
            }
        }
    }

    /** Every batch of every segment: valid CRC and sizes, offsets increasing across segments, names matching base offsets. */
    private static void validateLog(Path partitionDir) throws IOException {
        List<Path> segments;
        try (Stream<Path> files = Files.list(partitionDir)) {
            segments = files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .sorted()
                    .toList();
        }
        assertThat(segments).isNotEmpty();
        long nextOffset = -1;
        for (Path segment : segments) {
            long nameOffset = Long.parseLong(segment.getFileName().toString().replace(".log", ""));
            assertThat(nameOffset)
                    .as("segment %s starts at or after offset %d", segment, nextOffset)
                    .isGreaterThanOrEqualTo(nextOffset);
            File file = segment.toFile();
            long bytes = 0;
            try (FileRecords records = FileRecords.open(file, false)) {
                for (FileChannelRecordBatch batch : records.batches()) {
                    batch.ensureValid();
                    assertThat(batch.baseOffset())
                            .as("batch offsets increase in %s", segment)
                            .isGreaterThanOrEqualTo(Math.max(nextOffset, nameOffset));
                    nextOffset = batch.nextOffset();
                    bytes += batch.sizeInBytes();
                }
            }
            try (FileChannel channel = FileChannel.open(segment)) {
                assertThat(bytes)
                        .as("no bytes after the last whole batch of %s", segment)
                        .isEqualTo(channel.size());
            }
        }
    }
}

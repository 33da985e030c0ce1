package io.varve.it;

import static io.varve.it.ClientSupport.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.RemoteSegmentState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker process SIGKILLed in the middle of an upload and in the middle of a remote deletion (stopped exactly
 * there by the test-only {@code varve.test.remote.log.pause.at} hook), then restarted: no record is lost, every
 * object in the bucket belongs to a segment the metadata records as copied, and nothing is left half done.
 */
class TieredStorageCrashIT {
    private static final int RECORDS = 15_000;
    private static final int VALUE_BYTES = 200;

    private static TieredS3 s3;

    @TempDir
    Path work;

    @BeforeAll
    static void startS3() throws Exception {
        s3 = TieredS3.start();
    }

    @AfterAll
    static void stopS3() throws Exception {
        if (s3 != null) {
            s3.close();
        }
    }

    private ServerProcess startServer(String name, Path logDir, Map<String, String> config) throws Exception {
        ServerProcess server = ServerProcess.startOnFreePort(work, name, logDir, TieredS3.asOverrides(config));
        try {
            return server.awaitReady();
        } catch (RuntimeException | Error e) {
            server.close();
            throw new AssertionError("server " + name + " did not start: " + server.output(), e);
        }
    }

    private static Admin admin(ServerProcess server) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        return Admin.create(p);
    }

    /** A tiered topic with 1 MiB segments that keeps everything locally too (so reads need no remote path). */
    private static void createTopic(ServerProcess server, String topic) throws Exception {
        try (Admin admin = admin(server)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                            .configs(Map.of(
                                    "remote.storage.enable",
                                    "true",
                                    "segment.bytes",
                                    String.valueOf(1024 * 1024),
                                    "retention.ms",
                                    "-1",
                                    "local.retention.ms",
                                    "-1"))))
                    .all()
                    .get();
        }
    }

    private static Map<Long, Long> produce(ServerProcess server, String topic) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        Map<Long, Long> checksums = new HashMap<>();
        Random random = new Random(11);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            List<Long> crcs = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                byte[] value = new byte[VALUE_BYTES];
                random.nextBytes(value);
                CRC32 crc = new CRC32();
                crc.update(value);
                crcs.add(crc.getValue());
                sends.add(producer.send(new ProducerRecord<>(topic, 0, null, value)));
            }
            for (int i = 0; i < sends.size(); i++) {
                checksums.put(sends.get(i).get().offset(), crcs.get(i));
            }
        }
        return checksums;
    }

    /** Reads the partition from its earliest offset to {@code endOffset}; checks offsets and value checksums. */
    private static void readBack(
            ServerProcess server, String topic, Map<Long, Long> checksums, long fromOffset, long endOffset) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long next = fromOffset;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (next < endOffset && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    assertThat(record.offset()).isEqualTo(next);
                    CRC32 crc = new CRC32();
                    crc.update(record.value());
                    assertThat(crc.getValue()).as("value at %d", next).isEqualTo(checksums.get(next));
                    next++;
                }
            }
            assertThat(next).isEqualTo(endOffset);
        }
    }

    /** Rolled (uploadable) segments in the partition directory: every .log file but the active (last) one. */
    private static long rolledSegments(Path logDir, String topic) throws Exception {
        try (Stream<Path> files = Files.list(logDir.resolve(topic + "-0"))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log"))
                            .count()
                    - 1;
        }
    }

    /** Every object belongs to a segment recorded COPY_SEGMENT_FINISHED, and every such segment has its objects. */
    private static void assertNoOrphans(Path logDir, String prefix) throws Exception {
        List<RemoteSegmentMetadata> recorded = TieredS3.recordedSegments(logDir);
        assertThat(recorded).allMatch(m -> m.state() == RemoteSegmentState.COPY_SEGMENT_FINISHED);
        Set<String> ids = TieredS3.segmentIds(s3.keys(prefix));
        assertThat(ids)
                .containsExactlyInAnyOrderElementsOf(recorded.stream()
                        .map(m -> m.segmentId().id().toString())
                        .toList());
    }

    private Map<String, String> config(String prefix, String pauseAt, Path marker) {
        Map<String, String> config = new HashMap<>(s3.brokerConfig(prefix));
        if (pauseAt != null) {
            config.put("varve.test.remote.log.pause.at", pauseAt);
            config.put("varve.test.remote.log.pause.marker", marker.toString());
        }
        return config;
    }

    @Test
    void aBrokerKilledMidUploadLosesNoRecordAndLeavesNoOrphanObject() throws Exception {
        String prefix = "crash-" + Uuid.randomUuid();
        Path logDir = work.resolve("data");
        Path marker = work.resolve("paused");
        String topic = "tiered-crash-upload";

        Map<Long, Long> checksums;
        try (ServerProcess server = startServer("upload-1", logDir, config(prefix, "after-copy", marker))) {
            createTopic(server, topic);
            checksums = produce(server, topic);
            await().atMost(TIMEOUT).until(() -> Files.exists(marker));
            assertThat(s3.logKeys(prefix))
                    .as("the paused upload's objects are written")
                    .hasSize(1);
            server.kill();
        }
        assertThat(TieredS3.recordedSegments(logDir))
                .extracting(RemoteSegmentMetadata::state)
                .containsExactly(RemoteSegmentState.COPY_SEGMENT_STARTED);

        try (ServerProcess server = startServer("upload-2", logDir, config(prefix, null, null))) {
            long rolled = rolledSegments(logDir, topic);
            assertThat(rolled).isGreaterThanOrEqualTo(2);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> s3.logKeys(prefix).size() == rolled
                            && TieredS3.segmentIds(s3.keys(prefix)).size() == rolled);
            readBack(server, topic, checksums, 0, RECORDS);
            assertThat(server.terminate(Duration.ofSeconds(30))).isTrue();
        }
        assertNoOrphans(logDir, prefix);
    }

    @Test
    void aBrokerKilledMidDeleteFinishesTheDeletionAndLosesNoRecordAboveTheLogStart() throws Exception {
        String prefix = "crash-" + Uuid.randomUuid();
        Path logDir = work.resolve("data");
        Path marker = work.resolve("paused");
        String topic = "tiered-crash-delete";
        TopicPartition tp = new TopicPartition(topic, 0);

        Map<Long, Long> checksums;
        long deleteBefore;
        try (ServerProcess server = startServer("delete-1", logDir, config(prefix, "after-delete-started", marker))) {
            createTopic(server, topic);
            checksums = produce(server, topic);
            long rolled = rolledSegments(logDir, topic);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> s3.logKeys(prefix).size() == rolled);
            List<String> segmentFiles;
            try (Stream<Path> files = Files.list(logDir.resolve(topic + "-0"))) {
                segmentFiles = files.map(f -> f.getFileName().toString())
                        .filter(n -> n.endsWith(".log"))
                        .sorted()
                        .toList();
            }
            deleteBefore = Long.parseLong(segmentFiles.get(1).substring(0, 20)) + 1; // just past the first segment
            try (Admin admin = admin(server)) {
                admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(deleteBefore)))
                        .all()
                        .get();
            }
            await().atMost(TIMEOUT).until(() -> Files.exists(marker));
            assertThat(s3.logKeys(prefix))
                    .as("DELETE_SEGMENT_STARTED, objects still there")
                    .hasSize((int) rolled);
            server.kill();
        }
        assertThat(TieredS3.recordedSegments(logDir))
                .extracting(RemoteSegmentMetadata::state)
                .contains(RemoteSegmentState.DELETE_SEGMENT_STARTED);

        try (ServerProcess server = startServer("delete-2", logDir, config(prefix, null, null))) {
            // the interrupted deletion of segment [0, ...] completes; the other segments stay
            await().atMost(Duration.ofSeconds(60)).until(() -> s3.logKeys(prefix).stream()
                    .noneMatch(key -> key.contains("/" + "0".repeat(20) + "-")));
            assertThat(s3.logKeys(prefix)).hasSize((int) rolledSegments(logDir, topic));
            readBack(server, topic, checksums, deleteBefore, RECORDS);
            assertThat(server.terminate(Duration.ofSeconds(30))).isTrue();
        }
        assertNoOrphans(logDir, prefix);
    }
}

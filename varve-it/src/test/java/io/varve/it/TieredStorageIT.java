package io.varve.it;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.storage.PartitionLog;
import io.varve.tiered.manager.RemoteLogManager;
import io.varve.tiered.manager.UploadLag;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.zip.CRC32;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiered storage end to end against a real S3-compatible server (s3proxy, its own JVM): segments of a topic with
 * remote.storage.enable go to the bucket, local.retention.bytes keeps the local disk bounded without moving the log
 * start offset, a restart changes nothing, and while the S3 server is down local data is kept and hot data served.
 */
class TieredStorageIT {
    private static final int SEGMENT_BYTES = 1024 * 1024; // the smallest segment.bytes Kafka 4 accepts
    private static final int LOCAL_RETENTION_BYTES = 2 * SEGMENT_BYTES;
    private static final int VALUE_BYTES = 200;

    private static TieredS3 s3;

    @TempDir
    Path dataDir;

    private TestBroker broker;

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

    @AfterEach
    void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    private static Map<String, String> tieredTopicConfig() {
        return Map.of(
                "remote.storage.enable",
                "true",
                "segment.bytes",
                String.valueOf(SEGMENT_BYTES),
                "local.retention.bytes",
                String.valueOf(LOCAL_RETENTION_BYTES),
                "retention.ms",
                "-1",
                "file.delete.delay.ms",
                "100");
    }

    /** Produces {@code count} records with random values from offset {@code first} on; returns value CRCs by offset. */
    private static Map<Long, Long> produce(TestBroker broker, String topic, int first, int count, long seed)
            throws Exception {
        Map<Long, Long> checksums = new HashMap<>();
        Random random = new Random(seed);
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of(
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.LINGER_MS_CONFIG,
                "5",
                ProducerConfig.BATCH_SIZE_CONFIG,
                "65536"))) {
            List<Future<RecordMetadata>> sends = new ArrayList<>(count);
            List<Long> crcs = new ArrayList<>(count);
            for (int i = first; i < first + count; i++) {
                byte[] value = new byte[VALUE_BYTES];
                random.nextBytes(value);
                CRC32 crc = new CRC32();
                crc.update(value);
                crcs.add(crc.getValue());
                sends.add(producer.send(new ProducerRecord<>(topic, 0, ("key-" + i).getBytes(), value)));
            }
            for (int i = 0; i < sends.size(); i++) {
                checksums.put(sends.get(i).get().offset(), crcs.get(i));
            }
        }
        return checksums;
    }

    private TopicIdPartition tip(String topic, Uuid topicId) {
        return new TopicIdPartition(topicId, topic, 0);
    }

    private PartitionLog localLog(String topic) {
        return broker.broker().logManager().getLog(new TopicPartition(topic, 0)).orElseThrow();
    }

    /** Every offset below the active segment is in remote storage. */
    static boolean allRolledUploaded(PartitionLog log) {
        List<Long> bases = log.segmentBaseOffsets();
        return log.highestUploadedOffset() >= bases.get(bases.size() - 1) - 1;
    }

    private RemoteLogManager rlm() {
        return broker.broker().remoteLogManager();
    }

    private long earliestOffset(String topic) throws Exception {
        TopicPartition tp = new TopicPartition(topic, 0);
        try (var admin = broker.admin()) {
            return admin.listOffsets(Map.of(tp, OffsetSpec.earliest()))
                    .partitionResult(tp)
                    .get()
                    .offset();
        }
    }

    /** Reads the partition from offset 0 to {@code endOffset} and checks every value's CRC. */
    private void readBackFromZero(String topic, Map<Long, Long> checksums, long endOffset) {
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(Map.of())) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            long next = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (next < endOffset && System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    assertThat(record.offset()).isEqualTo(next);
                    CRC32 crc = new CRC32();
                    crc.update(record.value());
                    assertThat(crc.getValue())
                            .as("value at offset %d", record.offset())
                            .isEqualTo(checksums.get(next));
                    next++;
                }
            }
            assertThat(next).as("records read back from offset 0").isEqualTo(endOffset);
        }
    }

    @Test
    void fiftyThousandRecordsGoToTheBucketLocalDiskStaysBoundedAndARestartChangesNothing() throws Exception {
        String prefix = "it-" + Uuid.randomUuid();
        broker = TestBroker.start(dataDir, s3.brokerConfig(prefix));
        String topic = uniqueTopic("tiered");
        Uuid topicId;
        try (var admin = broker.admin()) {
            topicId = createTopic(admin, topic, 1, tieredTopicConfig());
        }

        Map<Long, Long> checksums = produce(broker, topic, 0, 50_000, 42);
        PartitionLog log = localLog(topic);
        Path partitionDir = log.dir();

        await().atMost(Duration.ofSeconds(60))
                .until(() -> allRolledUploaded(log)
                        && TieredS3.localLogBytes(partitionDir) <= LOCAL_RETENTION_BYTES + SEGMENT_BYTES);
        List<RemoteSegmentMetadata> copied = rlm().copiedSegments(tip(topic, topicId));
        assertThat(copied).hasSizeGreaterThanOrEqualTo(8);
        assertThat(copied.get(0).startOffset()).isZero();
        assertThat(copied.get(copied.size() - 1).endOffset() + 1)
                .isEqualTo(
                        log.rolledSegmentViews().isEmpty()
                                ? log.segmentBaseOffsets().get(0)
                                : log.rolledSegmentViews()
                                                .get(log.rolledSegmentViews().size() - 1)
                                                .endOffset()
                                        + 1);
        for (int i = 1; i < copied.size(); i++) {
            assertThat(copied.get(i).startOffset())
                    .as("contiguous")
                    .isEqualTo(copied.get(i - 1).endOffset() + 1);
        }
        Set<String> keys = s3.keys(prefix);
        assertThat(s3.logKeys(prefix)).hasSize(copied.size());
        assertThat(TieredS3.segmentIds(keys))
                .containsExactlyInAnyOrderElementsOf(
                        copied.stream().map(m -> m.segmentId().id().toString()).toList());
        assertThat(log.logStartOffset()).isZero();
        assertThat(log.localLogStartOffset()).isPositive();
        assertThat(earliestOffset(topic)).isZero();
        List<Long> localSegments = log.segmentBaseOffsets();
        long localStart = log.localLogStartOffset();

        broker.restart();
        PartitionLog reopened = localLog(topic);
        await().atMost(TIMEOUT)
                .until(() -> rlm().copiedSegments(tip(topic, topicId)).size() == copied.size()
                        && reopened.highestUploadedOffset()
                                == copied.get(copied.size() - 1).endOffset());
        assertThat(reopened.logStartOffset()).isZero();
        assertThat(reopened.localLogStartOffset()).isEqualTo(localStart);
        assertThat(reopened.segmentBaseOffsets()).isEqualTo(localSegments);
        assertThat(rlm().copiedSegments(tip(topic, topicId))).isEqualTo(copied);
        assertThat(s3.keys(prefix)).isEqualTo(keys);
        assertThat(earliestOffset(topic)).isZero();

        readBackFromZero(topic, checksums, 50_000);
    }

    @Test
    void whileTheS3ServerIsDownLocalDataIsKeptHotDataServedAndUploadsResumeAfterwards() throws Exception {
        String prefix = "it-" + Uuid.randomUuid();
        broker = TestBroker.start(dataDir, s3.brokerConfig(prefix));
        String topic = uniqueTopic("tiered-outage");
        Uuid topicId;
        try (var admin = broker.admin()) {
            topicId = createTopic(admin, topic, 1, tieredTopicConfig());
        }
        PartitionLog log = localLog(topic);

        s3.stopProxy();
        Map<Long, Long> checksums;
        try {
            checksums = produce(broker, topic, 0, 30_000, 7);
            // rolled segments pile up locally: nothing is uploaded, so local retention deletes nothing
            await().atMost(TIMEOUT).until(() -> rlm().stats().failedRuns() > 0);
            assertThat(log.segmentCount()).isGreaterThan(4);
            assertThat(log.localLogStartOffset()).isZero();
            await().atMost(TIMEOUT)
                    .until(() -> rlm().uploadLag(log.topicPartition()).segments() == log.segmentCount() - 1);
            assertThat(rlm().copiedSegments(tip(topic, topicId))).isEmpty();
            // hot data is still served
            TopicPartition tp = log.topicPartition();
            try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(Map.of())) {
                consumer.assign(List.of(tp));
                consumer.seek(tp, 29_990);
                List<ConsumerRecord<byte[], byte[]>> tail = new ArrayList<>();
                long deadline = System.nanoTime() + TIMEOUT.toNanos();
                while (tail.size() < 10 && System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(100)).forEach(tail::add);
                }
                assertThat(tail)
                        .extracting(ConsumerRecord::offset)
                        .startsWith(29_990L)
                        .hasSize(10);
            }
        } finally {
            s3.startProxy();
        }

        await().atMost(Duration.ofSeconds(60))
                .until(() -> allRolledUploaded(log)
                        && TieredS3.localLogBytes(log.dir()) <= LOCAL_RETENTION_BYTES + SEGMENT_BYTES);
        assertThat(log.logStartOffset()).isZero();
        assertThat(log.localLogStartOffset()).isPositive();
        assertThat(s3.logKeys(prefix))
                .hasSize(rlm().copiedSegments(tip(topic, topicId)).size());
        assertThat(Files.exists(log.dir())).isTrue();
        readBackFromZero(topic, checksums, 30_000);
    }

    @Test
    void withNoBrokerConfigATopicIsTieredToTheFilesystemBackendBesideTheDataDir() throws Exception {
        Path logDir = dataDir.resolve("data");
        Path remoteDir = dataDir.resolve("data-remote");
        broker = TestBroker.start(
                logDir, Map.of("log.retention.check.interval.ms", "200", "remote.log.manager.task.interval.ms", "200"));
        String topic = uniqueTopic("tiered-default");
        try (var admin = broker.admin()) {
            createTopic(admin, topic, 1, tieredTopicConfig());
        }

        produce(broker, topic, 0, 15_000, 3);
        PartitionLog log = localLog(topic);

        await().atMost(Duration.ofSeconds(60)).until(() -> allRolledUploaded(log) && log.localLogStartOffset() > 0);
        List<RemoteSegmentMetadata> copied = rlm().copiedSegments(tip(topic, log.topicId()));
        assertThat(copied).isNotEmpty();
        try (var files = Files.walk(remoteDir)) {
            assertThat(files.filter(f -> f.getFileName().toString().endsWith(".log"))
                            .count())
                    .isEqualTo(copied.size());
        }
        await().atMost(TIMEOUT)
                .until(() -> rlm().uploadLag(log.topicPartition()).equals(UploadLag.NONE));
        assertThat(log.logStartOffset()).isZero();
    }
}

package io.varve.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.metrics.PrometheusScrape;
import io.varve.tiered.metadata.TopicIdPartition;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transparent remote reads (issue 7) with real clients: records whose local copies local retention deleted are
 * fetched from remote storage through the normal Fetch and ListOffsets APIs.
 */
class TieredReadIT {
    private static final long BASE_TIMESTAMP_MS = System.currentTimeMillis() - 60_000;
    private static final int SEGMENT_BYTES = 32 * 1024;

    @TempDir
    Path dir;

    /** Small segments, uploads and local retention every 200 ms, small remote read chunks. */
    private static Map<String, String> brokerConfig(Path remoteRoot) {
        Map<String, String> config = new HashMap<>();
        config.put("log.segment.bytes", String.valueOf(SEGMENT_BYTES));
        config.put("log.retention.check.interval.ms", "200");
        config.put("remote.log.manager.task.interval.ms", "200");
        config.put("remote.log.reader.chunk.size.bytes", "65536");
        config.put("remote.log.reader.chunk.cache.size.bytes", "262144");
        config.put("varve.http.listeners", "http://127.0.0.1:0");
        if (remoteRoot != null) {
            config.put("rsm.config.fs.root.dir", remoteRoot.toString());
        }
        return config;
    }

    private static Map<String, String> tieredTopic() {
        return Map.of("remote.storage.enable", "true", "local.retention.bytes", String.valueOf(2 * SEGMENT_BYTES));
    }

    /** Produces {@code count} records with distinct keys and values; returns each record's checksum by offset. */
    private static List<Long> produce(TestBroker broker, String topic, int count) throws Exception {
        return produce(broker, topic, 0, count);
    }

    private static List<Long> produce(TestBroker broker, String topic, int partition, int count) throws Exception {
        List<Long> checksums = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer =
                broker.producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, 5, ProducerConfig.BATCH_SIZE_CONFIG, 4096))) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
                byte[] value = ("value-" + i + "-" + "v".repeat(60 + i % 40)).getBytes(StandardCharsets.UTF_8);
                sends.add(producer.send(new ProducerRecord<>(topic, partition, BASE_TIMESTAMP_MS + i, key, value)));
                checksums.add(checksum(BASE_TIMESTAMP_MS + i, key, value));
            }
            for (int i = 0; i < count; i++) {
                assertThat(sends.get(i).get().offset()).isEqualTo(i);
            }
        }
        return checksums;
    }

    private static long checksum(long timestampMs, byte[] key, byte[] value) {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(Long.BYTES).putLong(0, timestampMs));
        crc.update(key);
        crc.update(value);
        return crc.getValue();
    }

    /** Reads the partition from offset 0 to {@code count} and checks every record against its checksum. */
    private static void consumeAllFromZero(
            KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, List<Long> checksums) {
        consumer.assign(List.of(tp));
        consumer.seek(tp, 0);
        long next = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (next < checksums.size()) {
            assertThat(System.nanoTime())
                    .as("read up to offset %d of %d in time", next, checksums.size())
                    .isLessThan(deadline);
            for (ConsumerRecord<byte[], byte[]> r :
                    consumer.poll(Duration.ofMillis(200)).records(tp)) {
                assertThat(r.offset()).isEqualTo(next);
                assertThat(checksum(r.timestamp(), r.key(), r.value()))
                        .as("record %d", next)
                        .isEqualTo(checksums.get((int) next));
                next++;
            }
        }
    }

    private static long offset(Admin admin, TopicPartition tp, OffsetSpec spec) throws Exception {
        return admin.listOffsets(Map.of(tp, spec)).partitionResult(tp).get().offset();
    }

    /** Waits until local retention dropped the local copies of at least {@code minOffset} offsets. */
    private static void awaitTiered(Admin admin, TopicPartition tp, long minOffset) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> offset(admin, tp, OffsetSpec.earliestLocal()) >= minOffset);
    }

    @Test
    void aConsumerFromOffsetZeroReadsEveryTieredRecordByteIdenticalAlsoAfterARestart() throws Exception {
        try (TestBroker broker = TestBroker.start(dir.resolve("data"), brokerConfig(dir.resolve("remote")));
                Admin admin = broker.admin()) {
            String topic = ClientSupport.uniqueTopic("tiered-read");
            ClientSupport.createTopic(admin, topic, 1, tieredTopic());
            TopicPartition tp = new TopicPartition(topic, 0);
            List<Long> checksums = produce(broker, topic, 20_000);
            awaitTiered(admin, tp, 10_000);
            assertThat(offset(admin, tp, OffsetSpec.earliest())).isZero();
            assertThat(offset(admin, tp, OffsetSpec.latestTiered())).isGreaterThanOrEqualTo(10_000 - 1);

            try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(Map.of())) {
                consumeAllFromZero(consumer, tp, checksums);
            }
            PrometheusScrape scraped = PrometheusScrape.scrape(broker.broker().httpPort(0), false);
            assertThat(scraped.value(
                            "kafka_log_remote_remotelogmanager_remotelogreaderfetchrateandtimems_count", Map.of()))
                    .as("the remote reads were timed")
                    .isPositive();
            double lookups = scraped.value("varve_remote_chunk_cache_lookups_total", Map.of());
            assertThat(lookups).isPositive();
            assertThat(scraped.value("varve_remote_chunk_cache_misses_total", Map.of()))
                    .as("the first read of each chunk fetches it")
                    .isPositive()
                    .isLessThanOrEqualTo(lookups);
            assertThat(scraped.value("varve_remote_chunk_cache_hit_ratio", Map.of()))
                    .isBetween(0.0, 1.0);

            broker.restart();
            try (Admin afterRestart = broker.admin();
                    KafkaConsumer<byte[], byte[]> consumer = broker.consumer(Map.of())) {
                assertThat(offset(afterRestart, tp, OffsetSpec.earliest())).isZero();
                assertThat(offset(afterRestart, tp, OffsetSpec.earliestLocal())).isGreaterThanOrEqualTo(10_000);
                consumeAllFromZero(consumer, tp, checksums);
            }
        }
    }

    @Test
    void aFetchReadsAtMostOnePartitionFromRemoteStorageAndAnswersTheOthersEmptyWithoutError() throws Exception {
        try (TestBroker broker = TestBroker.start(dir.resolve("data"), brokerConfig(dir.resolve("remote")));
                Admin admin = broker.admin()) {
            String topic = ClientSupport.uniqueTopic("tiered-two");
            ClientSupport.createTopic(admin, topic, 2, tieredTopic());
            for (int p = 0; p < 2; p++) {
                produce(broker, topic, p, 3_000);
                awaitTiered(admin, new TopicPartition(topic, p), 1_000);
            }
            FetchRequestData request = WireRequests.fetch(topic, 0, 0, 0);
            var fetchTopic = request.topics().get(0);
            fetchTopic.setPartitions(List.of(
                    fetchTopic.partitions().get(0),
                    new FetchRequestData.FetchPartition()
                            .setPartition(1)
                            .setFetchOffset(0)
                            .setPartitionMaxBytes(1 << 20)
                            .setCurrentLeaderEpoch(-1)
                            .setLogStartOffset(-1)));

            try (RawClient client = new RawClient(broker.port())) {
                FetchResponseData response = client.send(request, WireRequests.FETCH_VERSION);
                var partitions = response.responses().get(0).partitions();
                assertThat(partitions).extracting(p -> p.errorCode()).containsExactly((short) 0, (short) 0);
                assertThat(partitions.get(0).records().sizeInBytes()).isPositive();
                assertThat(partitions.get(1).records().sizeInBytes()).isZero();
                assertThat(partitions.get(1).logStartOffset()).isZero();

                var second = WireRequests.fetch(client, topic, 1, 0);
                assertThat(second.errorCode()).isZero();
                assertThat(second.records().sizeInBytes()).isPositive();
            }
        }
    }

    @Test
    void timestampLookupsLandOnRemoteRecordsAndMaxTimestampOnTheLastRecord() throws Exception {
        try (TestBroker broker = TestBroker.start(dir.resolve("data"), brokerConfig(dir.resolve("remote")));
                Admin admin = broker.admin()) {
            String topic = ClientSupport.uniqueTopic("tiered-times");
            ClientSupport.createTopic(admin, topic, 1, tieredTopic());
            TopicPartition tp = new TopicPartition(topic, 0);
            int count = 8_000;
            produce(broker, topic, count);
            awaitTiered(admin, tp, 3_000);
            long localStart = offset(admin, tp, OffsetSpec.earliestLocal());

            assertThat(offset(admin, tp, OffsetSpec.forTimestamp(BASE_TIMESTAMP_MS + 1234)))
                    .isEqualTo(1234);
            assertThat(offset(admin, tp, OffsetSpec.forTimestamp(BASE_TIMESTAMP_MS)))
                    .isZero();
            assertThat(offset(admin, tp, OffsetSpec.forTimestamp(BASE_TIMESTAMP_MS + localStart + 5)))
                    .isEqualTo(localStart + 5);
            assertThat(offset(admin, tp, OffsetSpec.maxTimestamp())).isEqualTo(count - 1);
            try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(Map.of())) {
                Map<TopicPartition, OffsetAndTimestamp> found =
                        consumer.offsetsForTimes(Map.of(tp, BASE_TIMESTAMP_MS + 77));
                assertThat(found.get(tp).offset()).isEqualTo(77);
                assertThat(found.get(tp).timestamp()).isEqualTo(BASE_TIMESTAMP_MS + 77);
            }
        }
    }

    @Test
    void deleteRecordsIntoRemoteDataMovesTheLogStartAndRemoteSegmentsBelowItGo() throws Exception {
        try (TestBroker broker = TestBroker.start(dir.resolve("data"), brokerConfig(dir.resolve("remote")));
                Admin admin = broker.admin()) {
            String topic = ClientSupport.uniqueTopic("tiered-delete");
            Uuid topicId = ClientSupport.createTopic(admin, topic, 1, tieredTopic());
            TopicPartition tp = new TopicPartition(topic, 0);
            List<Long> checksums = produce(broker, topic, 6_000);
            awaitTiered(admin, tp, 3_000);
            long newStart = 1_500;

            long lowWatermark = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(newStart)))
                    .lowWatermarks()
                    .get(tp)
                    .get()
                    .lowWatermark();

            assertThat(lowWatermark).isEqualTo(newStart);
            assertThat(offset(admin, tp, OffsetSpec.earliest())).isEqualTo(newStart);
            TopicIdPartition remote = new TopicIdPartition(topicId, tp);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> broker.broker().remoteLogManager().copiedSegments(remote).stream()
                            .allMatch(m -> m.endOffset() >= newStart));
            try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(Map.of())) {
                consumer.assign(List.of(tp));
                consumer.seek(tp, 100); // below the new start: OFFSET_OUT_OF_RANGE, then "earliest" = the new start
                long next = newStart;
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (next < checksums.size()) {
                    assertThat(System.nanoTime())
                            .as("read up to offset %d", next)
                            .isLessThan(deadline);
                    for (ConsumerRecord<byte[], byte[]> r :
                            consumer.poll(Duration.ofMillis(200)).records(tp)) {
                        if (r.offset() < newStart) {
                            // the batch holding the new start may begin below it, as Kafka serves it
                            continue;
                        }
                        assertThat(r.offset()).isEqualTo(next);
                        assertThat(checksum(r.timestamp(), r.key(), r.value())).isEqualTo(checksums.get((int) next));
                        next++;
                    }
                }
            }
        }
    }

    @Test
    void aStoppedStoreStallsTheTieredPartitionWhileHotDataFlowsAndReadsResumeWithoutResetOrLoss() throws Exception {
        try (TieredS3 s3 = TieredS3.start()) {
            Map<String, String> config = brokerConfig(null);
            config.putAll(s3.brokerConfig("read-outage"));
            config.put("remote.log.reader.chunk.size.bytes", "65536");
            try (TestBroker broker = TestBroker.start(dir.resolve("data"), config);
                    Admin admin = broker.admin()) {
                String topic = ClientSupport.uniqueTopic("tiered-outage");
                String hotTopic = ClientSupport.uniqueTopic("hot");
                ClientSupport.createTopic(admin, topic, 1, tieredTopic());
                ClientSupport.createTopic(admin, hotTopic, 1);
                TopicPartition tp = new TopicPartition(topic, 0);
                TopicPartition hot = new TopicPartition(hotTopic, 0);
                List<Long> checksums = produce(broker, topic, 4_000);
                awaitTiered(admin, tp, 1_000);

                s3.stopProxy();
                // "latest": an OFFSET_OUT_OF_RANGE answer would make the consumer jump to the end and lose records
                try (KafkaConsumer<byte[], byte[]> consumer =
                                broker.consumer(Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest"));
                        KafkaProducer<byte[], byte[]> hotProducer = broker.producer(Map.of())) {
                    consumer.assign(List.of(tp, hot));
                    consumer.seek(tp, 0);
                    consumer.seek(hot, 0);
                    int hotSent = 0;
                    int hotReceived = 0;
                    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while (hotReceived < 50) {
                        assertThat(System.nanoTime())
                                .as("hot records keep flowing")
                                .isLessThan(deadline);
                        hotProducer.send(new ProducerRecord<>(
                                hotTopic, 0, null, ("hot-" + hotSent++).getBytes(StandardCharsets.UTF_8)));
                        hotProducer.flush();
                        var records = consumer.poll(Duration.ofMillis(100));
                        assertThat(records.records(tp))
                                .as("no tiered record while the store is down")
                                .isEmpty();
                        hotReceived += records.records(hot).size();
                    }
                    assertThat(consumer.position(tp))
                            .as("the tiered partition stays at offset 0")
                            .isZero();

                    s3.startProxy();
                    consumer.pause(List.of(hot));
                    long next = 0;
                    deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                    while (next < checksums.size()) {
                        assertThat(System.nanoTime())
                                .as("tiered reads resume, at offset %d", next)
                                .isLessThan(deadline);
                        for (ConsumerRecord<byte[], byte[]> r :
                                consumer.poll(Duration.ofMillis(200)).records(tp)) {
                            assertThat(r.offset()).isEqualTo(next);
                            assertThat(checksum(r.timestamp(), r.key(), r.value()))
                                    .isEqualTo(checksums.get((int) next));
                            next++;
                        }
                    }
                }
            }
        }
    }
}

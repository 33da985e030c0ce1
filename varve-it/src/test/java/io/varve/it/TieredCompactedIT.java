package io.varve.it;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.storage.PartitionLog;
import io.varve.tiered.manager.RemoteLogManager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compacted topic with remote storage (Kafka refuses this; Varve tiers it): segments are uploaded once the
 * cleaner has compacted them, the local copies go, and a consumer from offset 0, served from the bucket, ends with
 * the latest value of every key, deleted keys absent.
 */
class TieredCompactedIT {
    private static final int KEYS = 2_000;
    private static final int ROUNDS = 4;

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

    @Test
    void aCompactedTieredTopicReadFromOffsetZeroYieldsTheLatestValuePerKey() throws Exception {
        Map<String, String> config = new HashMap<>(s3.brokerConfig("compacted-" + Uuid.randomUuid()));
        config.put("log.cleaner.backoff.ms", "100");
        broker = TestBroker.start(dataDir, config);
        String topic = uniqueTopic("tiered-compacted");
        try (var admin = broker.admin()) {
            createTopic(
                    admin,
                    topic,
                    1,
                    Map.of(
                            "cleanup.policy",
                            "compact",
                            "remote.storage.enable",
                            "true",
                            "segment.bytes",
                            String.valueOf(1024 * 1024),
                            "segment.ms",
                            "500",
                            "local.retention.ms",
                            "1000",
                            "min.cleanable.dirty.ratio",
                            "0.01",
                            "file.delete.delay.ms",
                            "100"));
        }

        Map<String, String> latest = new HashMap<>();
        byte[] padding = new byte[300];
        try (KafkaProducer<byte[], byte[]> producer =
                broker.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, "5"))) {
            for (int round = 0; round < ROUNDS; round++) {
                for (int k = 0; k < KEYS; k++) {
                    String key = "key-" + k;
                    boolean delete = round == ROUNDS - 1 && k % 7 == 0;
                    String value = "round-" + round + "-" + k + new String(padding, UTF_8);
                    producer.send(
                            new ProducerRecord<>(topic, 0, key.getBytes(UTF_8), delete ? null : value.getBytes(UTF_8)));
                    if (delete) {
                        latest.remove(key);
                    } else {
                        latest.put(key, value);
                    }
                }
                producer.flush();
            }
        }

        TopicPartition tp = new TopicPartition(topic, 0);
        PartitionLog log = broker.broker().logManager().getLog(tp).orElseThrow();
        RemoteLogManager rlm = broker.broker().remoteLogManager();
        // everything rolled (segment.ms), compacted, uploaded, and the local copies gone
        await().atMost(Duration.ofSeconds(60))
                .until(() -> log.localLogStartOffset() == log.logEndOffset() && TieredStorageIT.allRolledUploaded(log));
        assertThat(log.logStartOffset()).isZero();
        assertThat(rlm.stats().segmentsCopied()).isPositive();

        Map<String, String> read = new HashMap<>();
        long end = log.logEndOffset();
        try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(Map.of())) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            long position = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (position < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    String key = new String(record.key(), UTF_8);
                    if (record.value() == null) {
                        read.remove(key);
                    } else {
                        read.put(key, new String(record.value(), UTF_8));
                    }
                }
                position = consumer.position(tp);
            }
            assertThat(position).isEqualTo(end);
        }
        assertThat(read).hasSize(latest.size()).isEqualTo(latest);
    }
}

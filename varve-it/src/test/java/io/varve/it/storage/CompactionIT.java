package io.varve.it.storage;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.readAll;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.it.SharedBroker;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Compacted topics through real clients: the log cleaner leaves the latest value of each key, drops
 * deleted keys after delete.retention.ms, and the broker refuses records without keys. Segments roll
 * by a short segment.ms and the cleaner backs off briefly, so cleaning happens within the test.
 */
class CompactionIT {

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(Map.of(
            "log.retention.check.interval.ms", "100",
            "log.cleaner.backoff.ms", "100",
            "log.cleaner.dedupe.buffer.size", Integer.toString(4 * 1024 * 1024)));

    private static final Map<String, String> COMPACTED = Map.of(
            "cleanup.policy", "compact",
            "segment.ms", "300",
            "min.cleanable.dirty.ratio", "0.01",
            "delete.retention.ms", "500",
            "file.delete.delay.ms", "1000");

    @Test
    void readFromOffsetZeroACompactedTopicYieldsTheLatestValuePerKeyAndNoDeletedKey() throws Exception {
        String topic = uniqueTopic("compacted");
        createTopic(shared.admin(), topic, 1, COMPACTED);
        Map<String, String> latest = new LinkedHashMap<>();
        long lastOffset;
        try (KafkaProducer<byte[], byte[]> producer = shared.broker()
                .producer(
                        Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, "gzip", ProducerConfig.LINGER_MS_CONFIG, "5"))) {
            for (int round = 0; round < 5; round++) {
                for (int k = 0; k < 10; k++) {
                    String value = "v" + round + "-" + k;
                    producer.send(new ProducerRecord<>(topic, 0, bytes("k" + k), bytes(value)));
                    latest.put("k" + k, value);
                }
                producer.flush();
            }
            for (String deleted : List.of("k0", "k7")) {
                producer.send(new ProducerRecord<>(topic, 0, bytes(deleted), null));
                latest.remove(deleted);
            }
            latest.put("last", "sentinel"); // keeps the log's tail a live record, so readers reach the end offset
            lastOffset = producer.send(new ProducerRecord<>(topic, 0, bytes("last"), bytes("sentinel")))
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                    .offset();
        }
        assertThat(lastOffset).isEqualTo(52);

        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    List<ConsumerRecord<byte[], byte[]>> read = readAll(shared.broker(), topic, 1);
                    Map<String, String> seen = new LinkedHashMap<>();
                    for (ConsumerRecord<byte[], byte[]> record : read) {
                        String key = new String(record.key(), UTF_8);
                        assertThat(seen).as("key %s appears once", key).doesNotContainKey(key);
                        seen.put(key, record.value() == null ? null : new String(record.value(), UTF_8));
                    }
                    assertThat(seen).isEqualTo(latest);
                });

        List<ConsumerRecord<byte[], byte[]>> read = readAll(shared.broker(), topic, 1);
        assertThat(read)
                .extracting(ConsumerRecord::offset)
                .as("offsets kept, gaps where records went")
                .isSorted()
                .contains(41L, 52L)
                .doesNotContain(0L, 40L, 47L, 50L, 51L);
        assertThat(read.get(read.size() - 1).offset()).isEqualTo(lastOffset);
    }

    @Test
    void aRecordWithoutAKeyIsRefusedByACompactedTopicWithInvalidRecord() throws Exception {
        String topic = uniqueTopic("keyless");
        createTopic(shared.admin(), topic, 1, COMPACTED);
        try (KafkaProducer<byte[], byte[]> producer = shared.broker().producer(Map.of())) {
            Future<RecordMetadata> keyless = producer.send(new ProducerRecord<>(topic, 0, null, bytes("no key")));
            assertThatThrownBy(() -> keyless.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidRecordException.class);
        }
        try (KafkaProducer<byte[], byte[]> producer = shared.broker().producer(Map.of())) {
            RecordMetadata keyed = producer.send(new ProducerRecord<>(topic, 0, bytes("k"), bytes("v")))
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(keyed.offset())
                    .as("nothing of the refused batch was written")
                    .isZero();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }
}

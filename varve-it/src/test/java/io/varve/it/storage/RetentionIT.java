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
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Retention through real clients: whole segments go when retention.ms or retention.bytes says so, and
 * only then; the log start offset (earliest offset) moves past them, a consumer from the beginning starts
 * there, and a fetch below it is out of range so that auto.offset.reset applies. Retention runs every
 * 100 ms; segments roll by a short segment.ms, which the test watches in the partition directory to know
 * that a retention pass ran after its last write.
 */
class RetentionIT {

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(Map.of("log.retention.check.interval.ms", "100"));

    private static final long OLD_MS = System.currentTimeMillis() - 3_600_000L;

    @Test
    void segmentsOlderThanRetentionMsGoAndReadersStartAfterThem() throws Exception {
        String topic = uniqueTopic("retention-ms");
        TopicPartition tp = new TopicPartition(topic, 0);
        createTopic(shared.admin(), topic, 1, Map.of("retention.ms", "600000", "segment.ms", "300"));

        produce(topic, 0, 10, OLD_MS); // an hour old: past retention.ms
        await().atMost(TIMEOUT).until(() -> earliestOffset(tp) == 10);

        produce(topic, 10, 20, System.currentTimeMillis());
        awaitSegmentFiles(topic, 2); // rolled by a retention pass, which kept it: its data is fresh
        produce(topic, 20, 21, System.currentTimeMillis());
        awaitSegmentFiles(topic, 3); // one more pass since
        assertThat(earliestOffset(tp)).isEqualTo(10);
        assertThat(readAll(shared.broker(), topic, 1))
                .extracting(ConsumerRecord::offset)
                .containsExactlyElementsOf(LongStream.range(10, 21).boxed().toList());

        try (KafkaConsumer<byte[], byte[]> consumer =
                shared.broker().consumer(Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"))) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 3);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            assertThatThrownBy(() -> {
                        while (System.nanoTime() < deadline) {
                            consumer.poll(Duration.ofMillis(100));
                        }
                    })
                    .as("a fetch below the log start offset")
                    .isInstanceOf(OffsetOutOfRangeException.class);
        }
        try (KafkaConsumer<byte[], byte[]> consumer =
                shared.broker().consumer(Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"))) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 3);
            assertThat(pollFirst(consumer).offset())
                    .as("auto.offset.reset=earliest after out of range")
                    .isEqualTo(10);
        }
    }

    @Test
    void theOldestSegmentGoesOnlyOnceTheLogOutgrowsRetentionBytes() throws Exception {
        String topic = uniqueTopic("retention-bytes");
        TopicPartition tp = new TopicPartition(topic, 0);
        createTopic(shared.admin(), topic, 1, Map.of("retention.bytes", "1", "segment.ms", "300"));

        produce(topic, 0, 10, System.currentTimeMillis());
        awaitSegmentFiles(topic, 2);
        assertThat(earliestOffset(tp))
                .as("the only data is never deleted for size")
                .isZero();

        produce(topic, 10, 20, System.currentTimeMillis());
        await().atMost(TIMEOUT).until(() -> earliestOffset(tp) == 10);
        awaitSegmentFiles(topic, 2); // the new data rolled too, and stays: without it the log is below the limit
        produce(topic, 20, 21, System.currentTimeMillis());
        await().atMost(TIMEOUT).until(() -> earliestOffset(tp) == 20);

        try (KafkaConsumer<byte[], byte[]> consumer = shared.broker().consumer(Map.of())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            assertThat(consumer.position(tp, TIMEOUT))
                    .as("a consumer from the beginning")
                    .isEqualTo(20);
        }
        assertThat(readAll(shared.broker(), topic, 1))
                .extracting(ConsumerRecord::offset)
                .containsExactly(20L);
    }

    private static void produce(String topic, int from, int to, long timestampMs) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = shared.broker().producer(Map.of())) {
            for (int i = from; i < to; i++) {
                producer.send(new ProducerRecord<>(
                        topic, 0, timestampMs, ("k" + i).getBytes(UTF_8), ("v" + i).getBytes(UTF_8)));
            }
            producer.flush();
        }
    }

    private static long earliestOffset(TopicPartition tp) throws Exception {
        return shared.admin()
                .listOffsets(Map.of(tp, OffsetSpec.earliest()))
                .partitionResult(tp)
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .offset();
    }

    /** Waits until the partition directory holds {@code count} live segments (retired ones end in .deleted). */
    private static void awaitSegmentFiles(String topic, int count) {
        Path dir = shared.broker().dataDir().resolve(topic + "-0");
        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> segmentFiles(dir) == count);
    }

    private static long segmentFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .count();
        }
    }

    private static ConsumerRecord<byte[], byte[]> pollFirst(KafkaConsumer<byte[], byte[]> consumer) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (records.isEmpty() && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(100)).forEach(records::add);
        }
        assertThat(records).isNotEmpty();
        return records.get(0);
    }
}

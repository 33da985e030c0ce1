package io.varve.it.fetchsession;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.FetchFrameMeter;
import io.varve.it.FetchFrameMeter.Exchange;
import io.varve.it.TestBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kafka-clients 4.4 consumer of 2,000 partitions keeps a fetch session with the broker: after the first, full
 * fetch its requests name only what changed and the broker answers only partitions with news, so a fetch with nothing
 * new costs tens of bytes each way instead of tens of kilobytes. With {@code max.incremental.fetch.session.cache.slots=0}
 * every fetch is full.
 */
class ConsumerFetchSessionIT {
    private static final int PARTITIONS = 2_000;
    private static final int RECORDS_PER_PARTITION = 2;
    /** A request or response that names no partition: header, session fields, empty arrays. */
    private static final int IDLE_EXCHANGE_MAX_BYTES = 200;
    /** A fetch naming all 2,000 partitions takes at least this many bytes (about 30 per partition). */
    private static final int FULL_EXCHANGE_MIN_BYTES = 40_000;

    @TempDir
    Path dir;

    @Test
    void aConsumerOf2000PartitionsGetsEveryRecordAndIdleIncrementalFetchesCarryAlmostNothing() throws Exception {
        try (FetchFrameMeter meter = new FetchFrameMeter();
                TestBroker broker = TestBroker.start(
                        dir, Map.of("advertised.listeners", "PLAINTEXT://127.0.0.1:" + meter.port()))) {
            meter.start(broker.port());
            String topic = "sessions";
            createAndFill(broker, topic);
            try (KafkaConsumer<byte[], byte[]> consumer = consumer(broker)) {
                List<TopicPartition> all = assignAll(consumer, topic);
                readEveryRecordOnce(consumer, all.size() * RECORDS_PER_PARTITION);

                List<Exchange> first = meter.exchanges();
                assertThat(first.get(0).sessionEpoch()).isZero();
                assertThat(first.get(0).requestBytes()).isGreaterThan(FULL_EXCHANGE_MIN_BYTES);
                assertThat(first.get(0).responseSessionId()).isPositive();
                assertThat(broker.broker().fetchSessions().sessionCount()).isEqualTo(1);
                assertThat(broker.broker().fetchSessions().partitionsCached()).isEqualTo(PARTITIONS);

                // the fetch after the last records names every partition (each position moved): let it pass
                meter.clear();
                pollUntilExchanges(consumer, meter, 2);
                meter.clear();
                List<Exchange> idle = pollUntilExchanges(consumer, meter, 5);
                assertThat(idle).allSatisfy(e -> {
                    assertThat(e.incremental()).isTrue();
                    assertThat(e.responseSessionId()).isEqualTo(e.sessionId());
                    assertThat(e.requestBytes()).isLessThan(IDLE_EXCHANGE_MAX_BYTES);
                    assertThat(e.responseBytes()).isLessThan(IDLE_EXCHANGE_MAX_BYTES);
                });

                // three new records: the response carries those three partitions, not the 2,000
                meter.clear();
                try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
                    for (int p : new int[] {5, 500, 1_500}) {
                        producer.send(new ProducerRecord<>(topic, p, null, bytes("late-" + p)));
                    }
                }
                Set<String> late = new HashSet<>();
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    consumer.poll(Duration.ofMillis(100)).forEach(r -> late.add(text(r)));
                    return late.size() == 3;
                });
                assertThat(late).containsExactlyInAnyOrder("late-5", "late-500", "late-1500");
                assertThat(meter.exchanges()).allSatisfy(e -> {
                    assertThat(e.incremental()).isTrue();
                    assertThat(e.responseBytes()).isLessThan(2_000);
                });
                System.out.printf(
                        "fetch sessions, %d partitions: full request %d B, full response %d B; idle incremental"
                                + " request %d B, response %d B%n",
                        PARTITIONS,
                        first.get(0).requestBytes(),
                        first.get(0).responseBytes(),
                        idle.get(0).requestBytes(),
                        idle.get(0).responseBytes());
            }
        }
    }

    @Test
    void withNoSessionSlotsEveryFetchNamesEveryPartition() throws Exception {
        try (FetchFrameMeter meter = new FetchFrameMeter();
                TestBroker broker = TestBroker.start(
                        dir,
                        Map.of(
                                "advertised.listeners",
                                "PLAINTEXT://127.0.0.1:" + meter.port(),
                                "max.incremental.fetch.session.cache.slots",
                                "0"))) {
            meter.start(broker.port());
            String topic = "no-sessions";
            createAndFill(broker, topic);
            try (KafkaConsumer<byte[], byte[]> consumer = consumer(broker)) {
                List<TopicPartition> all = assignAll(consumer, topic);
                readEveryRecordOnce(consumer, all.size() * RECORDS_PER_PARTITION);
                meter.clear();
                List<Exchange> idle = pollUntilExchanges(consumer, meter, 3);
                assertThat(idle).allSatisfy(e -> {
                    assertThat(e.incremental()).isFalse();
                    assertThat(e.responseSessionId()).isZero();
                    assertThat(e.requestBytes()).isGreaterThan(FULL_EXCHANGE_MIN_BYTES);
                    assertThat(e.responseBytes()).isGreaterThan(FULL_EXCHANGE_MIN_BYTES);
                });
                assertThat(broker.broker().fetchSessions().sessionCount()).isZero();
            }
        }
    }

    private static void createAndFill(TestBroker broker, String topic) throws Exception {
        // 2,000 partitions on a busy machine can take longer than TestBroker's admin waits
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "120000",
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "180000"))) {
            // waits until every partition serves: the node creates the logs after it answers CreateTopics, and
            // under load 2,000 of them take longer than a producer's delivery timeout
            io.varve.it.ClientSupport.createTopic(admin, topic, PARTITIONS);
        }
        try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
            for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    producer.send(new ProducerRecord<>(topic, p, null, bytes(p + "-" + i)));
                }
            }
            producer.flush();
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(TestBroker broker) {
        return broker.producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, "5"));
    }

    private static KafkaConsumer<byte[], byte[]> consumer(TestBroker broker) {
        return broker.consumer(Map.of(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100"));
    }

    private static List<TopicPartition> assignAll(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        List<TopicPartition> all = IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new TopicPartition(topic, p))
                .toList();
        consumer.assign(all);
        consumer.seekToBeginning(all);
        return all;
    }

    /** Polls until {@code expected} records came, and checks each partition's records arrived once, in order. */
    private static void readEveryRecordOnce(KafkaConsumer<byte[], byte[]> consumer, int expected) {
        Set<String> seen = new HashSet<>();
        int[] next = new int[PARTITIONS];
        await().atMost(Duration.ofSeconds(120)).until(() -> {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                assertThat(text(r)).isEqualTo(r.partition() + "-" + next[r.partition()]++);
                assertThat(seen.add(text(r))).isTrue();
            }
            return seen.size() >= expected;
        });
        assertThat(seen).hasSize(expected);
    }

    private static List<Exchange> pollUntilExchanges(
            KafkaConsumer<byte[], byte[]> consumer, FetchFrameMeter meter, int count) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            assertThat(consumer.poll(Duration.ofMillis(100))).isEmpty();
            return meter.exchanges().size() >= count;
        });
        return meter.exchanges();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(ConsumerRecord<byte[], byte[]> r) {
        return new String(r.value(), StandardCharsets.UTF_8);
    }
}

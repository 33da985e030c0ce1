package io.varve.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Idempotence under faults: the broker's test fault hook ({@code varve.test.produce.drop.response.every}) appends
 * a Produce request and then drops its response and closes the connection, so the idempotent producer retries
 * batches the log already holds. Every record must be in the log exactly once and in send order, also when the
 * broker process is killed with SIGKILL mid-stream and its producer state is rebuilt from snapshot and log tail.
 */
class IdempotenceUnderFaultsIT {
    private static final String TOPIC = "faulty";
    private static final int PARTITIONS = 2;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String PADDING = "x".repeat(2000);

    @TempDir
    Path workDir;

    private static KafkaProducer<byte[], byte[]> idempotentProducer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "16384");
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "20");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "20");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        return new KafkaProducer<>(p);
    }

    /** About 2 KB, so that the 1 MiB segments roll (and snapshot producer state) before the kill. */
    private static String value(int sequence) {
        return "r-" + sequence + "-" + PADDING;
    }

    /** Sends records {@code from..to-1} round-robin over the partitions; returns their futures. */
    private static List<Future<RecordMetadata>> send(KafkaProducer<byte[], byte[]> producer, int from, int to) {
        List<Future<RecordMetadata>> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value(i).getBytes(UTF_8))));
        }
        return out;
    }

    private static double retries(KafkaProducer<byte[], byte[]> producer) {
        for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
            if (e.getKey().name().equals("record-retry-total")
                    && e.getKey().group().equals("producer-metrics")) {
                return (Double) e.getValue().metricValue();
            }
        }
        throw new AssertionError("no record-retry-total metric");
    }

    /** What the log must hold: records 0..count-1, each in its partition, in send order. */
    private static Map<Integer, List<String>> expected(int count) {
        Map<Integer, List<String>> out = new HashMap<>();
        for (int i = 0; i < count; i++) {
            out.computeIfAbsent(i % PARTITIONS, p -> new ArrayList<>()).add(value(i));
        }
        return out;
    }

    private static Map<Integer, List<String>> readAll(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        Map<Integer, List<String>> out = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            for (ConsumerRecord<byte[], byte[]> r : ClientSupport.readAll(consumer, TOPIC, PARTITIONS)) {
                out.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(new String(r.value(), UTF_8));
            }
        }
        return out;
    }

    private static void createTopic(String bootstrap) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                    .all()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    private static void awaitAll(List<Future<RecordMetadata>> futures) throws Exception {
        for (Future<RecordMetadata> f : futures) {
            f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @Test
    void droppedProduceResponsesAreRetriedWithoutDuplicatesOrReordering() throws Exception {
        int count = 1200;
        try (TestBroker broker =
                TestBroker.start(workDir.resolve("data"), Map.of("varve.test.produce.drop.response.every", "3"))) {
            createTopic(broker.bootstrap());
            try (KafkaProducer<byte[], byte[]> producer = idempotentProducer(broker.bootstrap())) {
                awaitAll(send(producer, 0, count));
                assertThat(retries(producer))
                        .as("responses were dropped and batches retried")
                        .isPositive();
            }
            assertThat(readAll(broker.bootstrap())).isEqualTo(expected(count));
        }
    }

    @Test
    void droppedResponsesAcrossASigkillAndRestartAreStillWrittenExactlyOnce() throws Exception {
        int port = ServerProcess.freePort();
        String[] args = {
            "--override",
            "listeners=PLAINTEXT://127.0.0.1:" + port,
            "--override",
            "log.dirs=" + workDir.resolve("data"),
            "--override",
            "varve.test.produce.drop.response.every=4",
            "--override",
            "log.segment.bytes=1048576"
        };
        String bootstrap = "127.0.0.1:" + port;
        int half = 1200;
        int count = 2400;
        try (KafkaProducer<byte[], byte[]> producer = idempotentProducer(bootstrap)) {
            List<Future<RecordMetadata>> second;
            try (ServerProcess server =
                    ServerProcess.start(workDir, "before", port, args).awaitReady()) {
                createTopic(bootstrap);
                awaitAll(send(producer, 0, half));
                // More records in flight while the process dies: some are appended without an answer.
                second = send(producer, half, count);
                server.kill();
            }
            try (ServerProcess server = ServerProcess.start(workDir, "after", port, args)) {
                awaitAll(second);
                assertThat(retries(producer)).isPositive();
                assertThat(readAll(bootstrap)).isEqualTo(expected(count));
                assertThat(server.process().isAlive()).isTrue();
            }
        }
    }
}

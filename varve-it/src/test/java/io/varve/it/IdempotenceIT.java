package io.varve.it;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.ofPartition;
import static io.varve.it.ClientSupport.readAll;
import static io.varve.it.ClientSupport.uniqueTopic;
import static io.varve.it.WireRequests.errorOf;
import static io.varve.it.WireRequests.idempotentBatch;
import static io.varve.it.WireRequests.latestOffset;
import static io.varve.it.WireRequests.produce;
import static io.varve.it.WireRequests.record;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An idempotent producer's retried batches are written once: the broker recognises repeated sequences. */
class IdempotenceIT {
    @TempDir
    static Path dataDir;

    static TcpProxy proxy;
    static TestBroker broker;
    static Admin admin;

    @BeforeAll
    static void startBroker() throws Exception {
        proxy = new TcpProxy();
        // Clients learn the proxy's address from Metadata, so produce and fetch traffic goes through it.
        broker = TestBroker.start(dataDir, Map.of("advertised.listeners", "PLAINTEXT://127.0.0.1:" + proxy.port()));
        proxy.start(broker.port());
        admin = broker.admin();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (admin != null) {
            admin.close();
        }
        if (broker != null) {
            broker.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void aRepeatedIdempotentBatchIsAcknowledgedWithItsOriginalOffsetAndWrittenOnce() throws Exception {
        String topic = uniqueTopic("duplicate");
        createTopic(admin, topic, 1);
        try (RawClient client = new RawClient(broker.port())) {
            // Two plain records first, so the idempotent batch does not start at offset 0.
            assertThat(produce(
                                    client,
                                    topic,
                                    0,
                                    MemoryRecords.withRecords(
                                            Compression.NONE, record("plain", "0"), record("plain", "1")))
                            .baseOffset())
                    .isZero();
            InitProducerIdResponseData producer = WireRequests.initProducerId(client);
            MemoryRecords first = idempotentBatch(
                    producer.producerId(),
                    producer.producerEpoch(),
                    0,
                    record("k", "a"),
                    record("k", "b"),
                    record("k", "c"));

            PartitionProduceResponse original = produce(client, topic, 0, first);
            assertThat(errorOf(original)).isEqualTo(Errors.NONE);
            assertThat(original.baseOffset()).isEqualTo(2);
            assertThat(latestOffset(client, topic, 0)).isEqualTo(5);

            PartitionProduceResponse repeated = produce(client, topic, 0, first);
            assertThat(errorOf(repeated)).isEqualTo(Errors.NONE);
            assertThat(repeated.baseOffset()).isEqualTo(2);
            assertThat(latestOffset(client, topic, 0)).isEqualTo(5);

            PartitionProduceResponse second = produce(
                    client,
                    topic,
                    0,
                    idempotentBatch(producer.producerId(), producer.producerEpoch(), 3, record("k", "d")));
            assertThat(errorOf(second)).isEqualTo(Errors.NONE);
            assertThat(second.baseOffset()).isEqualTo(5);

            // A retry of an older batch, still among the producer's last five, is recognised too.
            PartitionProduceResponse late = produce(client, topic, 0, first);
            assertThat(errorOf(late)).isEqualTo(Errors.NONE);
            assertThat(late.baseOffset()).isEqualTo(2);
            assertThat(latestOffset(client, topic, 0)).isEqualTo(6);
        }
        assertThat(readAll(broker, topic, 1))
                .extracting(r -> new String(r.value(), UTF_8))
                .containsExactly("0", "1", "a", "b", "c", "d");
    }

    @Test
    void aProducerRetryingThroughCutConnectionsWritesTenThousandRecordsWithoutDuplicatesInOrder() throws Exception {
        String topic = uniqueTopic("retries");
        int partitions = 2;
        int count = 10_000;
        createTopic(admin, topic, partitions);
        List<Future<RecordMetadata>> acks = new ArrayList<>(count);
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5",
                ProducerConfig.BATCH_SIZE_CONFIG, "4096",
                ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "20",
                ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "20",
                ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200"))) {
            proxy.cutConnectionsEvery(96 * 1024, 8);
            for (int i = 0; i < count; i++) {
                acks.add(producer.send(new ProducerRecord<>(
                        topic,
                        i % partitions,
                        null,
                        String.format("record-%05d-%s", i, "x".repeat(80)).getBytes(UTF_8))));
            }
            producer.flush();
            for (Future<RecordMetadata> ack : acks) {
                ack.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            proxy.stopCutting();
        }
        assertThat(proxy.cutsDone()).as("connections cut while producing").isPositive();

        List<ConsumerRecord<byte[], byte[]>> read = readAll(broker, topic, partitions);
        for (int p = 0; p < partitions; p++) {
            List<Integer> indexes = ofPartition(read, p).stream()
                    .map(r -> Integer.parseInt(new String(r.value(), UTF_8).substring(7, 12)))
                    .toList();
            List<Integer> expected = new ArrayList<>();
            for (int i = p; i < count; i += partitions) {
                expected.add(i);
            }
            assertThat(indexes)
                    .as("partition %d: every record once (no loss, no duplicate)", p)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(firstOutOfOrder(indexes))
                    .as("partition %d: records out of send order", p)
                    .isEmpty();
        }
    }

    /** Where a list that should be ascending first goes down, or empty. */
    private static Optional<String> firstOutOfOrder(List<Integer> values) {
        for (int i = 1; i < values.size(); i++) {
            if (values.get(i) < values.get(i - 1)) {
                return Optional.of("at position " + i + ": " + values.get(i - 1) + " then " + values.get(i));
            }
        }
        return Optional.empty();
    }
}

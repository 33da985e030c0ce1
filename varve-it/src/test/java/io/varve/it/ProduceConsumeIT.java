package io.varve.it;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.ofPartition;
import static io.varve.it.ClientSupport.readAll;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What a kafka-clients producer writes, a kafka-clients consumer reads back unchanged, in order, at contiguous offsets. */
class ProduceConsumeIT {

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker();

    @Test
    void keysNullKeysNullValuesHeadersAndTimestampsComeBackAsSentAtContiguousOffsets() throws Exception {
        String topic = uniqueTopic("kinds");
        createTopic(shared.admin(), topic, 1);
        long ts = 1_700_000_000_000L;
        Headers headers = new RecordHeaders(new Header[] {
            new RecordHeader("h1", bytes("x")), new RecordHeader("h1", bytes("repeated")),
            new RecordHeader("null-valued", null), new RecordHeader("empty", new byte[0])
        });
        List<ProducerRecord<byte[], byte[]>> sent = List.of(
                new ProducerRecord<>(topic, 0, ts, bytes("k1"), bytes("v1")),
                new ProducerRecord<>(topic, 0, ts + 1, null, bytes("no key")),
                new ProducerRecord<>(topic, 0, ts + 2, bytes("tombstone"), (byte[]) null),
                new ProducerRecord<>(topic, 0, ts + 3, (byte[]) null, (byte[]) null),
                new ProducerRecord<>(topic, 0, ts + 4, bytes("k5"), new byte[0], headers));

        List<Long> offsets = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer =
                shared.broker().producer(Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
            for (ProducerRecord<byte[], byte[]> record : sent) {
                offsets.add(producer.send(record)
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                        .offset());
            }
        }
        assertThat(offsets).containsExactly(0L, 1L, 2L, 3L, 4L);

        List<ConsumerRecord<byte[], byte[]>> read = readAll(shared.broker(), topic, 1);
        assertThat(read).hasSize(sent.size());
        for (int i = 0; i < sent.size(); i++) {
            ProducerRecord<byte[], byte[]> expected = sent.get(i);
            ConsumerRecord<byte[], byte[]> actual = read.get(i);
            assertThat(actual.offset()).isEqualTo(i);
            assertThat(actual.key()).isEqualTo(expected.key());
            assertThat(actual.value()).isEqualTo(expected.value());
            assertThat(actual.timestamp()).isEqualTo(expected.timestamp());
            assertThat(describe(actual.headers())).isEqualTo(describe(expected.headers()));
        }
    }

    @Test
    void recordsKeepTheirSendOrderWithinEachPartitionAtContiguousOffsets() throws Exception {
        String topic = uniqueTopic("order");
        int partitions = 3;
        int perPartition = 200;
        createTopic(shared.admin(), topic, partitions);
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer =
                shared.broker().producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, "5"))) {
            for (int i = 0; i < partitions * perPartition; i++) {
                acks.add(producer.send(new ProducerRecord<>(topic, i % partitions, null, bytes(Integer.toString(i)))));
            }
            producer.flush();
        }
        for (Future<RecordMetadata> ack : acks) {
            assertThat(ack.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).hasOffset())
                    .isTrue();
        }

        List<ConsumerRecord<byte[], byte[]>> read = readAll(shared.broker(), topic, partitions);
        assertThat(read).hasSize(partitions * perPartition);
        for (int p = 0; p < partitions; p++) {
            List<ConsumerRecord<byte[], byte[]>> partition = ofPartition(read, p);
            assertThat(partition)
                    .extracting(ConsumerRecord::offset)
                    .containsExactlyElementsOf(
                            LongStream.range(0, perPartition).boxed().toList());
            int first = p;
            assertThat(partition)
                    .extracting(r -> Integer.parseInt(new String(r.value(), UTF_8)))
                    .containsExactlyElementsOf(IntStream.range(0, perPartition)
                            .map(i -> first + i * partitions)
                            .boxed()
                            .toList());
        }
    }

    @ParameterizedTest(name = "compression.type={0}")
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void compressedBatchesComeBackByteForByte(String compressionType) throws Exception {
        String topic = uniqueTopic("compressed-" + compressionType);
        createTopic(shared.admin(), topic, 1);
        Random random = new Random(compressionType.hashCode());
        List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            // Half compress well (repeated text), half not at all (random bytes), of varied sizes.
            byte[] value = i % 2 == 0
                    ? "varve compresses this text well. ".repeat(1 + i % 40).getBytes(UTF_8)
                    : randomBytes(random, 1 + random.nextInt(3000));
            values.add(value);
        }
        try (KafkaProducer<byte[], byte[]> producer = shared.broker()
                .producer(Map.of(
                        ProducerConfig.COMPRESSION_TYPE_CONFIG, compressionType,
                        ProducerConfig.LINGER_MS_CONFIG, "20",
                        ProducerConfig.BATCH_SIZE_CONFIG, "65536"))) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < values.size(); i++) {
                acks.add(producer.send(new ProducerRecord<>(
                        topic,
                        0,
                        bytes("key-" + i),
                        values.get(i),
                        List.of(new RecordHeader("index", bytes(Integer.toString(i)))))));
            }
            producer.flush();
            for (Future<RecordMetadata> ack : acks) {
                ack.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        }

        // Order is the subject of another test: here each record is matched to what was sent by its key.
        List<ConsumerRecord<byte[], byte[]>> read = readAll(shared.broker(), topic, 1);
        assertThat(read)
                .extracting(ConsumerRecord::offset)
                .containsExactlyElementsOf(
                        LongStream.range(0, values.size()).boxed().toList());
        Map<String, ConsumerRecord<byte[], byte[]>> byKey = new HashMap<>();
        read.forEach(r -> byKey.put(new String(r.key(), UTF_8), r));
        assertThat(byKey).hasSize(values.size());
        for (int i = 0; i < values.size(); i++) {
            ConsumerRecord<byte[], byte[]> r = byKey.get("key-" + i);
            assertThat(r).as("record key-%d", i).isNotNull();
            assertThat(r.value()).as("value of record key-%d", i).isEqualTo(values.get(i));
            assertThat(r.headers().lastHeader("index").value()).isEqualTo(bytes(Integer.toString(i)));
        }
    }

    @Test
    void aOneMegabyteRecordIsAcceptedUnderTheDefaultMessageMaxBytesAndReadBack() throws Exception {
        String topic = uniqueTopic("large");
        createTopic(shared.admin(), topic, 1);
        byte[] value = randomBytes(new Random(7), 1_000_000);
        try (KafkaProducer<byte[], byte[]> producer =
                shared.broker().producer(Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "2000000"))) {
            RecordMetadata metadata = producer.send(new ProducerRecord<>(topic, 0, bytes("big"), value))
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(metadata.offset()).isZero();
        }
        List<ConsumerRecord<byte[], byte[]>> read = readAll(shared.broker(), topic, 1);
        assertThat(read).hasSize(1);
        assertThat(read.get(0).value()).isEqualTo(value);
    }

    @Test
    void aRecordLargerThanTheTopicsMaxMessageBytesFailsWithRecordTooLargeAndIsNotWritten() throws Exception {
        String topic = uniqueTopic("too-large");
        createTopic(shared.admin(), topic, 1, Map.of("max.message.bytes", "10000"));
        try (KafkaProducer<byte[], byte[]> producer =
                shared.broker().producer(Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "2000000"))) {
            Future<RecordMetadata> tooLarge = producer.send(new ProducerRecord<>(topic, 0, null, new byte[20_000]));
            assertThat(tooLarge)
                    .failsWithin(TIMEOUT)
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(RecordTooLargeException.class);

            RecordMetadata small = producer.send(new ProducerRecord<>(topic, 0, null, new byte[1_000]))
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(small.offset()).isZero();
        }
        assertThat(readAll(shared.broker(), topic, 1)).singleElement().satisfies(r -> assertThat(r.value())
                .hasSize(1_000));
    }

    @ParameterizedTest(name = "acks={0}")
    @ValueSource(strings = {"0", "1"})
    void producersWithAcksZeroOrOneAlsoDeliverEveryRecord(String acks) throws Exception {
        String topic = uniqueTopic("acks" + acks);
        createTopic(shared.admin(), topic, 1);
        int count = 100;
        try (KafkaProducer<byte[], byte[]> producer = shared.broker()
                .producer(
                        Map.of(ProducerConfig.ACKS_CONFIG, acks, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false"))) {
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                futures.add(producer.send(new ProducerRecord<>(topic, 0, null, bytes(Integer.toString(i)))));
            }
            producer.flush();
            for (Future<RecordMetadata> f : futures) {
                f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        }
        // With acks=0 the producer does not learn when the broker appended: wait for the log end offset.
        TopicPartition tp = new TopicPartition(topic, 0);
        await().atMost(TIMEOUT)
                .until(() -> shared.admin()
                                .listOffsets(Map.of(tp, OffsetSpec.latest()))
                                .partitionResult(tp)
                                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                                .offset()
                        == count);

        List<ConsumerRecord<byte[], byte[]>> read = readAll(shared.broker(), topic, 1);
        assertThat(read)
                .extracting(r -> new String(r.value(), UTF_8))
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, count).mapToObj(Integer::toString).toList());
    }

    static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    static byte[] randomBytes(Random random, int length) {
        byte[] b = new byte[length];
        random.nextBytes(b);
        return b;
    }

    private static List<String> describe(Headers headers) {
        List<String> out = new ArrayList<>();
        for (Header h : headers) {
            out.add(h.key() + "=" + (h.value() == null ? "<null>" : Arrays.toString(h.value())));
        }
        return out;
    }
}

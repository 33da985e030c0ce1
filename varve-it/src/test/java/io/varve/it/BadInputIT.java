package io.varve.it;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static io.varve.it.WireRequests.errorOf;
import static io.varve.it.WireRequests.fetch;
import static io.varve.it.WireRequests.idempotentBatch;
import static io.varve.it.WireRequests.latestOffset;
import static io.varve.it.WireRequests.produce;
import static io.varve.it.WireRequests.record;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests no well-behaved client sends get Kafka's error code, change nothing, and leave the broker serving
 * everyone else; frames that cannot be parsed close only the connection that sent them.
 */
class BadInputIT {
    @TempDir
    static Path dataDir;

    static TestBroker broker;
    static Admin admin;
    static KafkaProducer<byte[], byte[]> healthProducer;
    static KafkaConsumer<byte[], byte[]> healthConsumer;
    static String healthTopic;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = TestBroker.start(dataDir);
        admin = broker.admin();
        healthTopic = uniqueTopic("health");
        createTopic(admin, healthTopic, 1);
        healthProducer = broker.producer(Map.of());
        healthConsumer = broker.consumer(Map.of());
    }

    @AfterAll
    static void stopBroker() {
        for (AutoCloseable c : new AutoCloseable[] {healthConsumer, healthProducer, admin, broker}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // closing after the tests: nothing left to prove
            }
        }
    }

    /** After every bad request the broker still takes a produce from kafka-clients and serves it to a consumer. */
    @AfterEach
    void brokerStillServesANormalProduceAndConsume() throws Exception {
        byte[] value = ("still serving after " + System.nanoTime()).getBytes(UTF_8);
        RecordMetadata metadata = healthProducer
                .send(new ProducerRecord<>(healthTopic, 0, null, value))
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        TopicPartition tp = new TopicPartition(healthTopic, 0);
        healthConsumer.assign(List.of(tp));
        healthConsumer.seek(tp, metadata.offset());
        long deadlineNanos = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadlineNanos) {
            for (ConsumerRecord<byte[], byte[]> r : healthConsumer.poll(Duration.ofMillis(200))) {
                if (r.offset() == metadata.offset()) {
                    assertThat(r.value()).isEqualTo(value);
                    return;
                }
            }
        }
        fail("the record produced at offset " + metadata.offset() + " of " + healthTopic + " was not consumed within "
                + TIMEOUT);
    }

    @Test
    void aBatchWithAFlippedByteFailsWithCorruptMessageAndNothingIsWritten() throws Exception {
        String topic = uniqueTopic("corrupt");
        createTopic(admin, topic, 1);
        byte[] bytes = bytesOf(MemoryRecords.withRecords(Compression.NONE, record("k1", "v1"), record("k2", "v2")));
        bytes[bytes.length - 1] ^= 0x5A; // inside the last record's value: only the CRC can notice
        try (RawClient client = new RawClient(broker.port())) {
            PartitionProduceResponse response =
                    produce(client, topic, 0, MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)));
            assertThat(errorOf(response)).isEqualTo(Errors.CORRUPT_MESSAGE);
            assertThat(latestOffset(client, topic, 0)).isZero();
            assertValidProduceSucceedsAt(client, topic, 0);
        }
    }

    @Test
    void aMagicV1BatchFailsWithInvalidRecord() throws Exception {
        String topic = uniqueTopic("magic1");
        createTopic(admin, topic, 1);
        MemoryRecords v1 = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V1, Compression.NONE, record("k", "v"));
        try (RawClient client = new RawClient(broker.port())) {
            assertThat(errorOf(produce(client, topic, 0, v1))).isEqualTo(Errors.INVALID_RECORD);
            assertThat(latestOffset(client, topic, 0)).isZero();
            assertValidProduceSucceedsAt(client, topic, 0);
        }
    }

    @Test
    void acksOtherThanAllZeroOrOneFailsWithInvalidRequiredAcks() throws Exception {
        String topic = uniqueTopic("acks2");
        createTopic(admin, topic, 1);
        try (RawClient client = new RawClient(broker.port())) {
            PartitionProduceResponse response = produce(client, topic, 0, (short) 2, validBatch());
            assertThat(errorOf(response)).isEqualTo(Errors.INVALID_REQUIRED_ACKS);
            assertThat(latestOffset(client, topic, 0)).isZero();
            assertValidProduceSucceedsAt(client, topic, 0);
        }
    }

    @Test
    void producingToAMissingTopicOrPartitionFailsWithUnknownTopicOrPartition() throws Exception {
        String topic = uniqueTopic("one-partition");
        createTopic(admin, topic, 1);
        try (RawClient client = new RawClient(broker.port())) {
            assertThat(errorOf(produce(client, uniqueTopic("missing"), 0, validBatch())))
                    .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
            assertThat(errorOf(produce(client, topic, 7, validBatch()))).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
            assertValidProduceSucceedsAt(client, topic, 0);
        }
    }

    @Test
    void aBatchLargerThanTheTopicsMaxMessageBytesFailsWithMessageTooLarge() throws Exception {
        String topic = uniqueTopic("max-message");
        createTopic(admin, topic, 1, Map.of("max.message.bytes", "1000"));
        MemoryRecords large = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[2000]));
        try (RawClient client = new RawClient(broker.port())) {
            assertThat(errorOf(produce(client, topic, 0, large))).isEqualTo(Errors.MESSAGE_TOO_LARGE);
            assertThat(latestOffset(client, topic, 0)).isZero();
            assertValidProduceSucceedsAt(client, topic, 0);
        }
    }

    @Test
    void aRecordSetLargerThanTheTopicsSegmentBytesFailsWithRecordListTooLarge() throws Exception {
        String topic = uniqueTopic("small-segments");
        int segmentBytes = createTopicWithSmallestAcceptedSegmentBytes(topic);
        // One batch under max.message.bytes (twice the segment) but larger than a whole segment.
        byte[] value = new byte[segmentBytes + 10_000];
        new Random(3).nextBytes(value);
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(value));
        try (RawClient client = new RawClient(broker.port())) {
            assertThat(errorOf(produce(client, topic, 0, batch))).isEqualTo(Errors.RECORD_LIST_TOO_LARGE);
            assertThat(latestOffset(client, topic, 0)).isZero();
            assertValidProduceSucceedsAt(client, topic, 0);
        }
    }

    /** Kafka 4 refuses segment.bytes under 1 MiB; a broker that accepts less gets the smaller value. */
    private static int createTopicWithSmallestAcceptedSegmentBytes(String topic) throws Exception {
        for (int segmentBytes : new int[] {16 * 1024, 1024 * 1024}) {
            try {
                createTopic(
                        admin,
                        topic,
                        1,
                        Map.of(
                                "segment.bytes", Integer.toString(segmentBytes),
                                "max.message.bytes", Integer.toString(2 * segmentBytes)));
                return segmentBytes;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof InvalidConfigurationException)) {
                    throw e;
                }
            }
        }
        throw new AssertionError("the broker accepts neither 16 KiB nor 1 MiB for segment.bytes");
    }

    @Test
    void aSequenceGapFromAnIdempotentProducerFailsWithOutOfOrderSequenceAndTheNextInOrderBatchSucceeds()
            throws Exception {
        String topic = uniqueTopic("sequence-gap");
        createTopic(admin, topic, 1);
        try (RawClient client = new RawClient(broker.port())) {
            InitProducerIdResponseData producer = WireRequests.initProducerId(client);
            long producerId = producer.producerId();
            short epoch = producer.producerEpoch();

            PartitionProduceResponse first = produce(
                    client, topic, 0, idempotentBatch(producerId, epoch, 0, record("a", "0"), record("a", "1")));
            assertThat(errorOf(first)).isEqualTo(Errors.NONE);
            assertThat(first.baseOffset()).isZero();

            PartitionProduceResponse gap =
                    produce(client, topic, 0, idempotentBatch(producerId, epoch, 5, record("a", "5")));
            assertThat(errorOf(gap)).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
            assertThat(latestOffset(client, topic, 0)).isEqualTo(2);

            PartitionProduceResponse next =
                    produce(client, topic, 0, idempotentBatch(producerId, epoch, 2, record("a", "2")));
            assertThat(errorOf(next)).isEqualTo(Errors.NONE);
            assertThat(next.baseOffset()).isEqualTo(2);
        }
    }

    @Test
    void fetchingBeyondTheEndOfAnEmptyPartitionFailsWithOffsetOutOfRange() throws Exception {
        String topic = uniqueTopic("empty");
        createTopic(admin, topic, 1);
        try (RawClient client = new RawClient(broker.port())) {
            FetchResponseData.PartitionData beyond = fetch(client, topic, 0, 1000);
            assertThat(Errors.forCode(beyond.errorCode())).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);

            FetchResponseData.PartitionData atEnd = fetch(client, topic, 0, 0);
            assertThat(Errors.forCode(atEnd.errorCode())).isEqualTo(Errors.NONE);
            assertThat(atEnd.highWatermark()).isZero();
            assertThat(atEnd.records() == null ? 0 : atEnd.records().sizeInBytes())
                    .isZero();
        }
    }

    @Test
    void anApiVersionsRequestOfAnUnknownVersionGetsUnsupportedVersionWithTheBrokersApisInV0() throws Exception {
        ByteBuffer request = ByteBuffer.allocate(64);
        request.putShort(ApiKeys.API_VERSIONS.id).putShort((short) 99).putInt(4242);
        byte[] clientId = "varve-it".getBytes(UTF_8);
        request.putShort((short) clientId.length).put(clientId);
        request.put((byte) 0); // no tagged fields in the (flexible) request header
        putCompactString(request, "varve-it");
        putCompactString(request, "99.0");
        request.put((byte) 0); // no tagged fields in the body
        byte[] frame = new byte[request.position()];
        request.flip().get(frame);

        try (RawClient client = new RawClient(broker.port())) {
            client.writeFrame(frame);
            ByteBuffer response = client.readFrame();
            assertThat(response.getInt()).isEqualTo(4242); // ApiVersions responses always have header v0
            ApiVersionsResponseData data = new ApiVersionsResponseData(new ByteBufferAccessor(response), (short) 0);
            assertThat(Errors.forCode(data.errorCode())).isEqualTo(Errors.UNSUPPORTED_VERSION);
            assertThat(data.apiKeys().find(ApiKeys.API_VERSIONS.id))
                    .isNotNull()
                    .satisfies(v -> assertThat(v.maxVersion()).isGreaterThanOrEqualTo((short) 3));
            assertThat(data.apiKeys().find(ApiKeys.PRODUCE.id)).isNotNull();
            assertThat(data.apiKeys().find(ApiKeys.FETCH.id)).isNotNull();
            assertThat(data.apiKeys().find(ApiKeys.METADATA.id)).isNotNull();
            // The connection stays usable: the client retries with a version both sides know.
            ApiVersionsResponseData retry = client.send(WireRequests.apiVersions(), WireRequests.API_VERSIONS_VERSION);
            assertThat(Errors.forCode(retry.errorCode())).isEqualTo(Errors.NONE);
        }
    }

    static Stream<Arguments> unparseableFrames() {
        byte[] random = new byte[200];
        new Random(42).nextBytes(random);
        random[0] = 0x7F; // an API key no version of the protocol has
        byte[] produceHeaderThenGarbage = new byte[200];
        new Random(43).nextBytes(produceHeaderThenGarbage);
        ByteBuffer.wrap(produceHeaderThenGarbage)
                .putShort(ApiKeys.PRODUCE.id)
                .putShort(WireRequests.PRODUCE_VERSION)
                .putInt(1)
                .putShort((short) 1)
                .put((byte) 'x');
        return Stream.of(
                Arguments.of("random bytes", random),
                Arguments.of("a frame shorter than a request header", new byte[] {0, 18, 0}),
                Arguments.of("a produce header followed by garbage", produceHeaderThenGarbage));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("unparseableFrames")
    void anUnparseableFrameClosesOnlyTheConnectionThatSentIt(String description, byte[] frame) throws Exception {
        try (RawClient bystander = new RawClient(broker.port());
                RawClient offender = new RawClient(broker.port())) {
            assertAnswersApiVersions(bystander);
            offender.writeFrame(frame);
            assertThat(offender.isClosedByPeer(Duration.ofSeconds(10)))
                    .as("connection closed after " + description)
                    .isTrue();
            assertAnswersApiVersions(bystander);
        }
        try (RawClient newcomer = new RawClient(broker.port())) {
            assertAnswersApiVersions(newcomer);
        }
    }

    @Test
    void aLengthPrefixOverSocketRequestMaxBytesClosesOnlyThatConnection(@TempDir Path dir) throws Exception {
        try (TestBroker small = TestBroker.start(dir, Map.of("socket.request.max.bytes", "1048576"));
                RawClient bystander = new RawClient(small.port());
                RawClient offender = new RawClient(small.port())) {
            assertAnswersApiVersions(bystander);
            offender.writeRaw(ByteBuffer.allocate(12)
                    .putInt(1 << 30)
                    .putShort(ApiKeys.PRODUCE.id)
                    .array());
            assertThat(offender.isClosedByPeer(Duration.ofSeconds(10))).isTrue();
            assertAnswersApiVersions(bystander);
        }
    }

    private static void assertAnswersApiVersions(RawClient client) throws IOException {
        ApiVersionsResponseData response = client.send(WireRequests.apiVersions(), WireRequests.API_VERSIONS_VERSION);
        assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
        assertThat(response.apiKeys()).isNotEmpty();
    }

    /** The same connection still takes a valid batch, appended at {@code expectedOffset}. */
    private static void assertValidProduceSucceedsAt(RawClient client, String topic, long expectedOffset)
            throws IOException {
        PartitionProduceResponse response = produce(client, topic, 0, validBatch());
        assertThat(errorOf(response)).isEqualTo(Errors.NONE);
        assertThat(response.baseOffset()).isEqualTo(expectedOffset);
    }

    private static MemoryRecords validBatch() {
        return MemoryRecords.withRecords(Compression.NONE, record("key", "valid"));
    }

    private static byte[] bytesOf(MemoryRecords records) {
        ByteBuffer buffer = records.buffer().duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private static void putCompactString(ByteBuffer buffer, String s) {
        byte[] bytes = s.getBytes(UTF_8);
        buffer.put((byte) (bytes.length + 1)); // unsigned varint length+1; short strings fit in one byte
        buffer.put(bytes);
    }
}

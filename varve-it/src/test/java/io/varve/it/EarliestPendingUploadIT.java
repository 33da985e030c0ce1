package io.varve.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.protocol.Errors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ListOffsets v11 (KIP-1023): EARLIEST_PENDING_UPLOAD (-6) answers the first offset of a tiered topic not yet in
 * remote storage, -1 for a topic that is not tiered; a sentinel newer than the request's version is
 * UNSUPPORTED_VERSION, as Kafka answers.
 */
class EarliestPendingUploadIT {
    private static final int SEGMENT_BYTES = 32 * 1024;
    private static final long EARLIEST_PENDING_UPLOAD = -6L;

    @TempDir
    Path dir;

    private static ListOffsetsResultInfo offsetOf(Admin admin, TopicPartition tp, OffsetSpec spec) throws Exception {
        return admin.listOffsets(Map.of(tp, spec)).partitionResult(tp).get(30, TimeUnit.SECONDS);
    }

    private static void produce(TestBroker broker, String topic, int records) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of())) {
            for (int i = 0; i < records; i++) {
                producer.send(
                        new ProducerRecord<>(topic, 0, null, ("record-" + i + "-" + "x".repeat(200)).getBytes(UTF_8)));
            }
            producer.flush();
        }
    }

    @Test
    void aTieredTopicAnswersItsLogStartBeforeAnyUploadThenTheOffsetAfterTheLastUploadedOne() throws Exception {
        Map<String, String> config = Map.of(
                "log.segment.bytes",
                String.valueOf(SEGMENT_BYTES),
                "log.retention.check.interval.ms",
                "200",
                "remote.log.manager.task.interval.ms",
                "200",
                "rsm.config.fs.root.dir",
                dir.resolve("remote").toString());
        try (TestBroker broker = TestBroker.start(dir.resolve("data"), config);
                Admin admin = broker.admin()) {
            // one segment, still active: nothing can be uploaded, the whole log is local
            String quiet = ClientSupport.uniqueTopic("pending-quiet");
            ClientSupport.createTopic(
                    admin, quiet, 1, Map.of("remote.storage.enable", "true", "segment.bytes", "10485760"));
            TopicPartition quietTp = new TopicPartition(quiet, 0);
            produce(broker, quiet, 10);
            assertThat(offsetOf(admin, quietTp, OffsetSpec.earliestPendingUpload())
                            .offset())
                    .isZero();

            String tiered = ClientSupport.uniqueTopic("pending-tiered");
            ClientSupport.createTopic(admin, tiered, 1, Map.of("remote.storage.enable", "true"));
            TopicPartition tp = new TopicPartition(tiered, 0);
            produce(broker, tiered, 1000);
            long end = offsetOf(admin, tp, OffsetSpec.latest()).offset();
            // once the rolled segments are uploaded (the active one never is), the answer is the next offset
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        long uploaded =
                                offsetOf(admin, tp, OffsetSpec.latestTiered()).offset();
                        assertThat(uploaded).isPositive();
                        assertThat(offsetOf(admin, tp, OffsetSpec.earliestPendingUpload())
                                        .offset())
                                .isEqualTo(uploaded + 1);
                    });
            long pending =
                    offsetOf(admin, tp, OffsetSpec.earliestPendingUpload()).offset();
            assertThat(pending).isPositive().isLessThan(end);
            assertThat(offsetOf(admin, tp, OffsetSpec.earliestPendingUpload()).leaderEpoch())
                    .contains(0);
        }
    }

    @Test
    void aTopicThatIsNotTieredAnswersNoOffsetAndOlderVersionsOrUnknownSentinelsAreUnsupported() throws Exception {
        try (TestBroker broker = TestBroker.start(dir.resolve("data"), Map.of());
                Admin admin = broker.admin()) {
            String topic = ClientSupport.uniqueTopic("pending-local");
            ClientSupport.createTopic(admin, topic, 1);
            TopicPartition tp = new TopicPartition(topic, 0);
            produce(broker, topic, 5);
            assertThat(offsetOf(admin, tp, OffsetSpec.earliestPendingUpload()).offset())
                    .isEqualTo(-1);
            try (RawClient client = new RawClient(broker.port())) {
                assertThat(partitionOf(
                                client.send(WireRequests.listOffsets(topic, 0, EARLIEST_PENDING_UPLOAD), (short) 11)))
                        .satisfies(p -> {
                            assertThat(p.errorCode()).isEqualTo(Errors.NONE.code());
                            assertThat(p.offset()).isEqualTo(-1);
                        });
                assertThat(partitionOf(client.send(
                                        WireRequests.listOffsets(topic, 0, EARLIEST_PENDING_UPLOAD), (short) 10))
                                .errorCode())
                        .isEqualTo(Errors.UNSUPPORTED_VERSION.code());
                assertThat(partitionOf(client.send(WireRequests.listOffsets(topic, 0, -7L), (short) 11))
                                .errorCode())
                        .isEqualTo(Errors.UNSUPPORTED_VERSION.code());
                assertThat(partitionOf(client.send(WireRequests.listOffsets(topic, 0, -2L), (short) 11))
                                .offset())
                        .isZero();
            }
        }
    }

    private static ListOffsetsPartitionResponse partitionOf(ListOffsetsResponseData response) {
        return response.topics().get(0).partitions().get(0);
    }
}

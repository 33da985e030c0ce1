package io.varve.it.admin;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.readAll;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.it.RawClient;
import io.varve.it.SharedBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.DeletedRecords;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** DeleteRecords as kafka-delete-records.sh uses it: the log start offset moves, readers start there, older offsets are out of range. */
class DeleteRecordsIT {

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker();

    private static TopicPartition topicWithRecords(String prefix, int records, Map<String, String> configs)
            throws Exception {
        String topic = uniqueTopic(prefix);
        createTopic(shared.admin(), topic, 1, configs);
        try (KafkaProducer<byte[], byte[]> producer = shared.broker().producer(Map.of())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, 0, ("k" + i).getBytes(), ("v" + i).getBytes()));
            }
            producer.flush();
        }
        return new TopicPartition(topic, 0);
    }

    private static KafkaFuture<DeletedRecords> deleteBefore(TopicPartition tp, long offset) {
        return shared.admin()
                .deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(offset)))
                .lowWatermarks()
                .get(tp);
    }

    @Test
    void readersFromTheBeginningStartAtTheNewLogStartOffset() throws Exception {
        TopicPartition tp = topicWithRecords("deleted", 10, Map.of());

        assertThat(deleteBefore(tp, 4)
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                        .lowWatermark())
                .isEqualTo(4);

        List<ConsumerRecord<byte[], byte[]>> read = readAll(shared.broker(), tp.topic(), 1);
        assertThat(read).extracting(ConsumerRecord::offset).containsExactly(4L, 5L, 6L, 7L, 8L, 9L);
        assertThat(shared.admin()
                        .listOffsets(Map.of(tp, OffsetSpec.earliest()))
                        .partitionResult(tp)
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                        .offset())
                .isEqualTo(4);
    }

    @Test
    void aFetchBelowTheLogStartOffsetIsOutOfRange() throws Exception {
        TopicPartition tp = topicWithRecords("below-start", 5, Map.of());
        deleteBefore(tp, 3).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        try (KafkaConsumer<byte[], byte[]> consumer =
                shared.broker().consumer(Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"))) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 1);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            assertThatThrownBy(() -> {
                        while (System.nanoTime() < deadline) {
                            consumer.poll(Duration.ofMillis(200));
                        }
                    })
                    .isInstanceOf(OffsetOutOfRangeException.class);
        }
    }

    @Test
    void minusOneDeletesUpToTheHighWatermark() throws Exception {
        TopicPartition tp = topicWithRecords("to-hw", 7, Map.of());

        assertThat(deleteBefore(tp, -1)
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                        .lowWatermark())
                .isEqualTo(7);
        assertThat(readAll(shared.broker(), tp.topic(), 1)).isEmpty();
    }

    @Test
    void offsetsAboveTheHighWatermarkAndCompactedTopicsAreRefused() throws Exception {
        TopicPartition tp = topicWithRecords("refused", 3, Map.of());
        TopicPartition compacted = topicWithRecords("compacted", 3, Map.of("cleanup.policy", "compact"));

        assertThat(deleteBefore(tp, 10))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(org.apache.kafka.common.errors.OffsetOutOfRangeException.class);
        assertThat(deleteBefore(compacted, 1))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(PolicyViolationException.class);
        assertThat(readAll(shared.broker(), tp.topic(), 1)).hasSize(3);
    }

    @Test
    void aPartitionThatDoesNotExistIsUnknownTopicOrPartition() throws Exception {
        // Admin keeps looking for a leader of a missing partition; the broker's answer is Kafka's.
        TopicPartition tp = topicWithRecords("no-partition", 1, Map.of());
        DeleteRecordsRequestData request = new DeleteRecordsRequestData().setTimeoutMs(5000);
        request.topics()
                .add(new DeleteRecordsRequestData.DeleteRecordsTopic()
                        .setName(tp.topic())
                        .setPartitions(List.of(new DeleteRecordsRequestData.DeleteRecordsPartition()
                                .setPartitionIndex(5)
                                .setOffset(0))));
        try (RawClient client = new RawClient(shared.broker().port())) {
            DeleteRecordsResponseData response = client.send(request, (short) 2);
            DeleteRecordsResponseData.DeleteRecordsPartitionResult result =
                    response.topics().iterator().next().partitions().iterator().next();
            assertThat(Errors.forCode(result.errorCode())).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
            assertThat(result.lowWatermark()).isEqualTo(-1);
        }
    }
}

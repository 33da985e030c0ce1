package io.varve.it;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** ListOffsets: earliest, latest, by timestamp and max timestamp answer with the exact record, also inside compressed batches. */
class ListOffsetsIT {
    @RegisterExtension
    static final SharedBroker shared = new SharedBroker();

    private static final long BASE_TS = 1_700_000_000_000L;

    @ParameterizedTest
    @ValueSource(strings = {"none", "lz4"})
    void timestampLookupsFindTheExactRecordWithinABatch(String compression) throws Exception {
        String topic = uniqueTopic("times-" + compression);
        createTopic(shared.admin(), topic, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        // Timestamps 0,10,...,90 s after BASE_TS except record 6, which carries the largest one; sent as one batch.
        try (KafkaProducer<byte[], byte[]> producer = shared.broker()
                .producer(Map.of(
                        ProducerConfig.COMPRESSION_TYPE_CONFIG,
                        compression,
                        ProducerConfig.LINGER_MS_CONFIG,
                        "1000"))) {
            Future<RecordMetadata> last = null;
            for (int i = 0; i < 10; i++) {
                long ts = i == 6 ? BASE_TS + 500_000 : BASE_TS + i * 10_000L;
                last = producer.send(new ProducerRecord<>(topic, 0, ts, null, ("v" + i).getBytes(UTF_8)));
            }
            producer.flush();
            assertThat(last.get(30, TimeUnit.SECONDS).offset()).isEqualTo(9);
        }
        try (KafkaConsumer<byte[], byte[]> consumer = shared.broker().consumer(Map.of())) {
            Map<TopicPartition, OffsetAndTimestamp> found =
                    consumer.offsetsForTimes(Map.of(tp, BASE_TS + 25_000), TIMEOUT);
            assertThat(found.get(tp).offset()).isEqualTo(3);
            assertThat(found.get(tp).timestamp()).isEqualTo(BASE_TS + 30_000);
            assertThat(consumer.offsetsForTimes(Map.of(tp, BASE_TS - 1), TIMEOUT)
                            .get(tp)
                            .offset())
                    .isZero();
            assertThat(consumer.offsetsForTimes(Map.of(tp, BASE_TS + 600_000), TIMEOUT)
                            .get(tp))
                    .isNull();
            assertThat(consumer.beginningOffsets(List.of(tp), TIMEOUT).get(tp)).isZero();
            assertThat(consumer.endOffsets(List.of(tp), TIMEOUT).get(tp)).isEqualTo(10);
        }
        ListOffsetsResultInfo max = shared.admin()
                .listOffsets(Map.of(tp, OffsetSpec.maxTimestamp()))
                .partitionResult(tp)
                .get(30, TimeUnit.SECONDS);
        assertThat(max.offset()).isEqualTo(6);
        assertThat(max.timestamp()).isEqualTo(BASE_TS + 500_000);
    }
}

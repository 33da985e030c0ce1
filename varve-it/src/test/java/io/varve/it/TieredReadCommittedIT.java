package io.varve.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions and tiered storage together: a read_committed consumer reading data that now lives only in remote
 * storage still skips aborted transactions, because the aborted-transaction indexes travel with the segments.
 */
class TieredReadCommittedIT {
    private static final int SEGMENT_BYTES = 32 * 1024;
    private static final int ROUNDS = 40;
    private static final int RECORDS_PER_ROUND = 50;

    @TempDir
    Path dir;

    @Test
    void readCommittedSkipsAbortedTransactionsWhoseDataIsOnlyInRemoteStorage() throws Exception {
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
            String topic = ClientSupport.uniqueTopic("tiered-txn");
            ClientSupport.createTopic(
                    admin,
                    topic,
                    1,
                    Map.of(
                            "remote.storage.enable",
                            "true",
                            "local.retention.bytes",
                            String.valueOf(2 * SEGMENT_BYTES)));
            TopicPartition tp = new TopicPartition(topic, 0);

            List<String> committed = new ArrayList<>();
            int total = 0;
            try (KafkaProducer<byte[], byte[]> producer = broker.producer(
                    Map.<String, Object>of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tiered-txn-producer"))) {
                producer.initTransactions();
                for (int round = 0; round < ROUNDS; round++) {
                    producer.beginTransaction();
                    List<String> values = new ArrayList<>();
                    for (int i = 0; i < RECORDS_PER_ROUND; i++) {
                        String value = "round-" + round + "-record-" + i + "-" + "x".repeat(80);
                        values.add(value);
                        producer.send(new ProducerRecord<>(topic, 0, null, value.getBytes(UTF_8)));
                    }
                    total += RECORDS_PER_ROUND;
                    if (round % 3 == 1) {
                        producer.flush(); // the aborted records reach the log, only to be hidden
                        producer.abortTransaction();
                    } else {
                        producer.commitTransaction();
                        committed.addAll(values);
                    }
                }
            }
            // Rounds 1, 4, 7 ... aborted: wait until the first few of them are no longer on local disk.
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> admin.listOffsets(Map.of(tp, OffsetSpec.earliestLocal()))
                                    .partitionResult(tp)
                                    .get()
                                    .offset()
                            >= 8L * (RECORDS_PER_ROUND + 1));

            assertThat(readAll(broker, tp, "read_committed", committed.size()))
                    .as("read_committed from offset 0 sees exactly the committed records, in order")
                    .containsExactlyElementsOf(committed);
            assertThat(readAll(broker, tp, "read_uncommitted", total))
                    .as("the aborted records are in the log, remote ones included")
                    .hasSize(total);
        }
    }

    /** Reads from offset 0 until {@code expected} values arrived, then a little longer to catch any extra ones. */
    private static List<String> readAll(TestBroker broker, TopicPartition tp, String isolation, int expected) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                broker.consumer(Map.<String, Object>of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation))) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            int quietPolls = 0;
            while (System.nanoTime() < deadline && (values.size() < expected || quietPolls < 3)) {
                List<ConsumerRecord<byte[], byte[]>> records =
                        consumer.poll(Duration.ofMillis(200)).records(tp);
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    values.add(new String(r.value(), UTF_8));
                }
                quietPolls = values.size() >= expected && records.isEmpty() ? quietPolls + 1 : 0;
            }
        }
        return values;
    }
}

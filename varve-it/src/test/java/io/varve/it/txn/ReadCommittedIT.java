package io.varve.it.txn;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.partitions;
import static io.varve.it.ClientSupport.readAll;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.RawClient;
import io.varve.it.SharedBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The read side of transactions with kafka-clients: read_committed consumers see exactly the committed records (and
 * plain ones) across 3 topics x 3 partitions, read_uncommitted ones see everything, and ListOffsets with
 * READ_COMMITTED stops at an open transaction.
 */
class ReadCommittedIT {
    private static final int TOPICS = 3;
    private static final int PARTITIONS = 3;

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(Map.of("transaction.state.log.num.partitions", "3"));

    private static KafkaProducer<byte[], byte[]> transactional(String transactionalId) {
        return shared.broker()
                .producer(Map.of(
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                        transactionalId,
                        ProducerConfig.MAX_BLOCK_MS_CONFIG,
                        "30000"));
    }

    private static KafkaConsumer<byte[], byte[]> consumer(IsolationLevel isolation) {
        return shared.broker()
                .consumer(Map.of(
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        isolation.toString().toLowerCase(java.util.Locale.ROOT)));
    }

    /** Sends "prefix-topic-partition-i" for i < perPartition to every partition of every topic. */
    private static void sendEverywhere(
            KafkaProducer<byte[], byte[]> producer, List<String> topics, String prefix, int perPartition) {
        for (String topic : topics) {
            for (int p = 0; p < PARTITIONS; p++) {
                for (int i = 0; i < perPartition; i++) {
                    producer.send(new ProducerRecord<>(
                            topic, p, null, (prefix + "-" + topic + "-" + p + "-" + i).getBytes(UTF_8)));
                }
            }
        }
    }

    private static List<String> values(List<ConsumerRecord<byte[], byte[]>> records, int partition) {
        return records.stream()
                .filter(r -> r.partition() == partition)
                .map(r -> new String(r.value(), UTF_8))
                .toList();
    }

    private static List<String> expected(String topic, int partition, List<String> prefixes, int perPartition) {
        List<String> out = new ArrayList<>();
        for (String prefix : prefixes) {
            for (int i = 0; i < perPartition; i++) {
                out.add(prefix + "-" + topic + "-" + partition + "-" + i);
            }
        }
        return out;
    }

    private static Map<TopicPartition, Long> latest(List<TopicPartition> tps, IsolationLevel isolation)
            throws Exception {
        Map<TopicPartition, ListOffsetsResultInfo> found = shared.admin()
                .listOffsets(
                        tps.stream().collect(Collectors.toMap(Function.identity(), tp -> OffsetSpec.latest())),
                        new ListOffsetsOptions(isolation))
                .all()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        Map<TopicPartition, Long> offsets = new HashMap<>();
        found.forEach((tp, info) -> offsets.put(tp, info.offset()));
        return offsets;
    }

    @Test
    void readCommittedConsumersSeeExactlyTheCommittedRecordsAndListOffsetsStopsAtAnOpenTransaction() throws Exception {
        List<String> topics = new ArrayList<>();
        List<TopicPartition> tps = new ArrayList<>();
        for (int t = 0; t < TOPICS; t++) {
            String topic = uniqueTopic("read-committed");
            createTopic(shared.admin(), topic, PARTITIONS);
            topics.add(topic);
            tps.addAll(partitions(topic, PARTITIONS));
        }
        try (KafkaProducer<byte[], byte[]> producer = transactional(uniqueTopic("rc-txn"));
                KafkaProducer<byte[], byte[]> plain = shared.broker().producer(Map.of())) {
            producer.initTransactions();
            producer.beginTransaction();
            sendEverywhere(producer, topics, "committed1", 3);
            producer.commitTransaction();

            producer.beginTransaction();
            sendEverywhere(producer, topics, "aborted", 4);
            producer.flush();
            // plain records written while the transaction is open become readable once it ends
            sendEverywhere(plain, topics, "plain", 2);
            plain.flush();
            producer.abortTransaction();

            producer.beginTransaction();
            sendEverywhere(producer, topics, "committed2", 2);
            producer.commitTransaction();

            for (String topic : topics) {
                List<ConsumerRecord<byte[], byte[]>> committed;
                List<ConsumerRecord<byte[], byte[]>> uncommitted;
                try (KafkaConsumer<byte[], byte[]> c = consumer(IsolationLevel.READ_COMMITTED)) {
                    committed = readAll(c, topic, PARTITIONS);
                }
                try (KafkaConsumer<byte[], byte[]> c = consumer(IsolationLevel.READ_UNCOMMITTED)) {
                    uncommitted = readAll(c, topic, PARTITIONS);
                }
                for (int p = 0; p < PARTITIONS; p++) {
                    assertThat(values(committed, p))
                            .as("read_committed %s-%d", topic, p)
                            .containsExactlyElementsOf(concat(
                                    expected(topic, p, List.of("committed1"), 3),
                                    expected(topic, p, List.of("plain"), 2),
                                    expected(topic, p, List.of("committed2"), 2)));
                    assertThat(values(uncommitted, p))
                            .as("read_uncommitted %s-%d", topic, p)
                            .containsExactlyElementsOf(concat(
                                    expected(topic, p, List.of("committed1"), 3),
                                    expected(topic, p, List.of("aborted"), 4),
                                    expected(topic, p, List.of("plain"), 2),
                                    expected(topic, p, List.of("committed2"), 2)));
                }
            }

            Map<TopicPartition, Long> stableBefore = latest(tps, IsolationLevel.READ_COMMITTED);
            assertThat(stableBefore).isEqualTo(latest(tps, IsolationLevel.READ_UNCOMMITTED));
            producer.beginTransaction();
            sendEverywhere(producer, topics, "open", 2);
            producer.flush();

            assertThat(latest(tps, IsolationLevel.READ_COMMITTED))
                    .as("stops at the open transaction")
                    .isEqualTo(stableBefore);
            Map<TopicPartition, Long> highWatermarks = latest(tps, IsolationLevel.READ_UNCOMMITTED);
            for (TopicPartition tp : tps) {
                assertThat(highWatermarks.get(tp)).isEqualTo(stableBefore.get(tp) + 2);
            }
            try (KafkaConsumer<byte[], byte[]> c = consumer(IsolationLevel.READ_COMMITTED)) {
                c.assign(tps);
                c.seek(tps.get(0), stableBefore.get(tps.get(0)));
                for (TopicPartition tp : tps) {
                    c.seek(tp, stableBefore.get(tp));
                }
                assertThat(c.poll(Duration.ofMillis(500)))
                        .as("nothing past the last stable offset")
                        .isEmpty();
                producer.commitTransaction();
                // the commit markers move the last stable offset: a waiting read_committed fetch gets the records
                List<String> got = new ArrayList<>();
                long deadlineNanos = System.nanoTime() + TIMEOUT.toNanos();
                while (got.size() < tps.size() * 2 && System.nanoTime() < deadlineNanos) {
                    c.poll(Duration.ofMillis(200)).forEach(r -> got.add(new String(r.value(), UTF_8)));
                }
                assertThat(got).hasSize(tps.size() * 2).allMatch(v -> v.startsWith("open-"));
            }
            assertThat(latest(tps, IsolationLevel.READ_COMMITTED))
                    .isEqualTo(latest(tps, IsolationLevel.READ_UNCOMMITTED));
        }
    }

    private static FetchResponseData.PartitionData rawFetch(String topic, IsolationLevel isolation, short version)
            throws Exception {
        try (RawClient client = new RawClient(shared.broker().port())) {
            FetchRequestData request = new FetchRequestData()
                    .setReplicaId(-1)
                    .setMaxWaitMs(0)
                    .setMinBytes(1)
                    .setMaxBytes(1 << 20)
                    .setIsolationLevel(isolation.id())
                    .setSessionId(0)
                    .setSessionEpoch(-1)
                    .setTopics(List.of(new FetchRequestData.FetchTopic()
                            .setTopic(topic)
                            .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                    .setPartition(0)
                                    .setFetchOffset(0)
                                    .setPartitionMaxBytes(1 << 20)
                                    .setCurrentLeaderEpoch(-1)
                                    .setLogStartOffset(-1)))));
            FetchResponseData response = client.send(request, version);
            return response.responses().get(0).partitions().get(0);
        }
    }

    private static long offsetForTime(TopicPartition tp, long timestampMs, IsolationLevel isolation) throws Exception {
        return shared.admin()
                .listOffsets(Map.of(tp, OffsetSpec.forTimestamp(timestampMs)), new ListOffsetsOptions(isolation))
                .partitionResult(tp)
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .offset();
    }

    @Test
    void aReadCommittedFetchCarriesTheLastStableOffsetAndTheAbortedTransactionsAndListOffsetsByTimeHonoursIt()
            throws Exception {
        String topic = uniqueTopic("rc-wire");
        createTopic(shared.admin(), topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = transactional(uniqueTopic("rc-wire-txn"))) {
            // record timestamps after the markers' (which are the broker's clock)
            long baseMs = System.currentTimeMillis() + 60_000;
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 0, baseMs, null, "gone".getBytes(UTF_8))); // 0
            producer.flush();
            producer.abortTransaction(); // marker at 1
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 0, baseMs + 10_000, null, "kept".getBytes(UTF_8))); // 2
            producer.commitTransaction(); // marker at 3
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, 0, baseMs + 20_000, null, "open".getBytes(UTF_8))); // 4, open
            producer.flush();

            TopicPartition tp = new TopicPartition(topic, 0);
            assertThat(offsetForTime(tp, baseMs + 5_000, IsolationLevel.READ_COMMITTED))
                    .isEqualTo(2);
            assertThat(offsetForTime(tp, baseMs + 15_000, IsolationLevel.READ_UNCOMMITTED))
                    .isEqualTo(4);
            assertThat(offsetForTime(tp, baseMs + 15_000, IsolationLevel.READ_COMMITTED))
                    .as("by time, nothing at or past the last stable offset")
                    .isEqualTo(-1);

            for (short version : new short[] {4, 11, 12}) {
                FetchResponseData.PartitionData committed = rawFetch(topic, IsolationLevel.READ_COMMITTED, version);
                assertThat(committed.errorCode()).isZero();
                assertThat(committed.highWatermark()).isEqualTo(5);
                assertThat(committed.lastStableOffset()).as("v%d", version).isEqualTo(4);
                assertThat(committed.abortedTransactions()).as("v%d", version).hasSize(1);
                assertThat(committed.abortedTransactions().get(0).firstOffset()).isZero();
                List<Long> offsets = new ArrayList<>();
                ((org.apache.kafka.common.record.internal.Records) committed.records())
                        .batches()
                        .forEach(b -> offsets.add(b.baseOffset()));
                assertThat(offsets)
                        .as("batches below the last stable offset only")
                        .containsExactly(0L, 1L, 2L, 3L);

                FetchResponseData.PartitionData uncommitted = rawFetch(topic, IsolationLevel.READ_UNCOMMITTED, version);
                assertThat(uncommitted.lastStableOffset())
                        .as("the real last stable offset")
                        .isEqualTo(4);
                assertThat(uncommitted.abortedTransactions()).isNull();
                List<Long> all = new ArrayList<>();
                ((org.apache.kafka.common.record.internal.Records) uncommitted.records())
                        .batches()
                        .forEach(b -> all.add(b.baseOffset()));
                assertThat(all).containsExactly(0L, 1L, 2L, 3L, 4L);
            }
            producer.abortTransaction();
        }
    }

    @SafeVarargs
    private static List<String> concat(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> part : parts) {
            all.addAll(part);
        }
        return all;
    }
}

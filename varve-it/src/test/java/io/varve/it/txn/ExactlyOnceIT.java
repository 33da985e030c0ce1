package io.varve.it.txn;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static io.varve.it.txn.TxnClients.READ_COMMITTED;
import static io.varve.it.txn.TxnClients.READ_UNCOMMITTED;
import static io.varve.it.txn.TxnClients.allValues;
import static io.varve.it.txn.TxnClients.readValues;
import static io.varve.it.txn.TxnClients.transactionalProducer;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.it.RawClient;
import io.varve.it.SharedBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Exactly-once with real kafka-clients: consume-transform-produce with sendOffsetsToTransaction, transactional
 * offsets, zombie fencing and abandoned transactions, checked with read_committed and read_uncommitted consumers.
 */
class ExactlyOnceIT {
    private static final int PARTITIONS = 3;
    private static final int RECORDS_PER_PARTITION = 30;

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(Map.of(
            "transaction.state.log.num.partitions", "3",
            "offsets.topic.num.partitions", "4",
            "group.initial.rebalance.delay.ms", "0",
            "transaction.abort.timed.out.transaction.cleanup.interval.ms", "200"));

    private static String bootstrap() {
        return shared.broker().bootstrap();
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, int partition, String value) {
        return new ProducerRecord<>(topic, partition, null, value.getBytes(UTF_8));
    }

    private static Map<TopicPartition, OffsetAndMetadata> committedOffsets(String group) throws Exception {
        ListConsumerGroupOffsetsResult result = shared.admin().listConsumerGroupOffsets(group);
        return result.partitionsToOffsetAndMetadata().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    private static Long committedOffset(String group, TopicPartition tp) throws Exception {
        OffsetAndMetadata o = committedOffsets(group).get(tp);
        return o == null ? null : o.offset();
    }

    @Test
    void consumeTransformProduceCommitsOutputAndOffsetsTogetherAndAbortedRoundsLeaveNothing() throws Exception {
        String input = uniqueTopic("ctp-in");
        String output = uniqueTopic("ctp-out");
        String group = "ctp-group-" + input;
        createTopic(shared.admin(), input, PARTITIONS);
        createTopic(shared.admin(), output, PARTITIONS);
        Map<Integer, List<String>> expected = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> plain = shared.broker().producer(Map.of())) {
            for (int p = 0; p < PARTITIONS; p++) {
                expected.put(p, new ArrayList<>());
                for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
                    String value = "v-" + p + "-" + i;
                    plain.send(record(input, p, value));
                    expected.get(p).add(value.toUpperCase(Locale.ROOT));
                }
            }
            plain.flush();
        }

        int aborted = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = TxnClients.consumer(
                        bootstrap(),
                        READ_COMMITTED,
                        Map.of(ConsumerConfig.GROUP_ID_CONFIG, group, ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "7"));
                KafkaProducer<byte[], byte[]> producer = transactionalProducer(bootstrap(), "ctp-" + input, Map.of())) {
            consumer.subscribe(List.of(input));
            producer.initTransactions();
            int committed = 0;
            int round = 0;
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (committed < PARTITIONS * RECORDS_PER_PARTITION) {
                assertThat(System.nanoTime()).as("all input processed in time").isLessThan(deadline);
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) {
                    continue;
                }
                producer.beginTransaction();
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    String upper = new String(r.value(), UTF_8).toUpperCase(Locale.ROOT);
                    producer.send(record(output, r.partition(), upper));
                    offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                if (round++ % 3 == 1) {
                    // Flushed first: abortTransaction drops batches not yet sent, and this round's records must
                    // reach the log (only to be hidden) for the read_uncommitted check below.
                    producer.flush();
                    producer.abortTransaction();
                    aborted++;
                    // Processing restarts from the first record of this round, as after a failure.
                    for (TopicPartition tp : records.partitions()) {
                        consumer.seek(tp, records.records(tp).get(0).offset());
                    }
                } else {
                    producer.commitTransaction();
                    committed += records.count();
                }
            }
        }
        assertThat(aborted).as("the test aborted some rounds").isPositive();

        Map<Integer, List<String>> committedOutput = readValues(bootstrap(), output, PARTITIONS, READ_COMMITTED);
        assertThat(committedOutput)
                .as("each input record transformed exactly once, in order")
                .isEqualTo(expected);
        assertThat(allValues(readValues(bootstrap(), output, PARTITIONS, READ_UNCOMMITTED)))
                .as("aborted rounds are in the log, only hidden")
                .hasSizeGreaterThan(PARTITIONS * RECORDS_PER_PARTITION);
        Map<TopicPartition, OffsetAndMetadata> offsets = committedOffsets(group);
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(offsets.get(new TopicPartition(input, p)).offset()).isEqualTo(RECORDS_PER_PARTITION);
        }
    }

    @Test
    void transactionalOffsetsAreCommittedWithTheTransactionAndDroppedWhenItAborts() throws Exception {
        String input = uniqueTopic("txn-offsets");
        createTopic(shared.admin(), input, 1);
        String group = "txn-offsets-group-" + input;
        TopicPartition tp = new TopicPartition(input, 0);
        try (KafkaProducer<byte[], byte[]> producer =
                transactionalProducer(bootstrap(), "offsets-" + input, Map.of())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(5)), new ConsumerGroupMetadata(group));
            assertThat(committedOffset(group, tp))
                    .as("invisible before the commit")
                    .isNull();
            producer.commitTransaction();
            await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> Long.valueOf(5)
                    .equals(committedOffset(group, tp)));

            producer.beginTransaction();
            producer.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(9)), new ConsumerGroupMetadata(group));
            producer.abortTransaction();
            producer.beginTransaction();
            producer.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(12)), new ConsumerGroupMetadata(group));
            producer.commitTransaction();
            await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> Long.valueOf(12)
                    .equals(committedOffset(group, tp)));
        }
        try (KafkaConsumer<byte[], byte[]> consumer =
                TxnClients.consumer(bootstrap(), READ_COMMITTED, Map.of(ConsumerConfig.GROUP_ID_CONFIG, group))) {
            assertThat(consumer.committed(Set.of(tp), TIMEOUT).get(tp).offset())
                    .as("a read_committed consumer (require_stable) reads the committed offset")
                    .isEqualTo(12);
        }
    }

    @Test
    void txnOffsetCommitOutsideTheTransactionOrForAnUnknownTopicIsRefused() throws Exception {
        String topic = uniqueTopic("raw-txn-offsets");
        createTopic(shared.admin(), topic, 1);
        String id = "raw-" + topic;
        try (KafkaProducer<byte[], byte[]> producer = transactionalProducer(bootstrap(), id, Map.of());
                RawClient raw = new RawClient(shared.broker().port())) {
            producer.initTransactions();
            TransactionDescription d = shared.admin()
                    .describeTransactions(List.of(id))
                    .description(id)
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            TxnOffsetCommitRequestData request = new TxnOffsetCommitRequestData()
                    .setTransactionalId(id)
                    .setGroupId("raw-group-" + topic)
                    .setProducerId(d.producerId())
                    .setProducerEpoch((short) d.producerEpoch())
                    .setTopics(List.of(
                            new TxnOffsetCommitRequestTopic()
                                    .setName(topic)
                                    .setPartitions(List.of(new TxnOffsetCommitRequestPartition()
                                            .setPartitionIndex(0)
                                            .setCommittedOffset(3))),
                            new TxnOffsetCommitRequestTopic()
                                    .setName("missing-" + topic)
                                    .setPartitions(List.of(new TxnOffsetCommitRequestPartition()
                                            .setPartitionIndex(0)
                                            .setCommittedOffset(3)))));
            TxnOffsetCommitResponseData response = raw.send(request, (short) 3);
            Map<String, Errors> errors = new HashMap<>();
            response.topics()
                    .forEach(t -> errors.put(
                            t.name(), Errors.forCode(t.partitions().get(0).errorCode())));
            assertThat(errors)
                    .as("no AddOffsetsToTxn came first")
                    .isEqualTo(Map.of(
                            topic, Errors.INVALID_TXN_STATE, "missing-" + topic, Errors.UNKNOWN_TOPIC_OR_PARTITION));
        }
    }

    @Test
    void aZombieProducerIsFencedAndItsDataStaysInvisibleToReadCommitted() throws Exception {
        String topic = uniqueTopic("zombie");
        createTopic(shared.admin(), topic, 2);
        String id = "zombie-" + topic;
        try (KafkaProducer<byte[], byte[]> zombie = transactionalProducer(bootstrap(), id, Map.of());
                KafkaProducer<byte[], byte[]> successor = transactionalProducer(bootstrap(), id, Map.of())) {
            zombie.initTransactions();
            zombie.beginTransaction();
            zombie.send(record(topic, 0, "zombie-0"));
            zombie.send(record(topic, 1, "zombie-1")).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

            successor.initTransactions();
            assertThatThrownBy(() -> {
                        zombie.send(record(topic, 0, "zombie-late"));
                        zombie.commitTransaction();
                    })
                    .isInstanceOf(KafkaException.class)
                    .satisfiesAnyOf(
                            e -> assertThat(e).isInstanceOf(ProducerFencedException.class),
                            e -> assertThat(e).isInstanceOf(InvalidProducerEpochException.class),
                            e -> assertThat(e).hasRootCauseInstanceOf(ProducerFencedException.class),
                            e -> assertThat(e).hasRootCauseInstanceOf(InvalidProducerEpochException.class));

            successor.beginTransaction();
            successor.send(record(topic, 0, "successor-0"));
            successor.send(record(topic, 1, "successor-1"));
            successor.commitTransaction();
        }
        assertThat(readValues(bootstrap(), topic, 2, READ_COMMITTED))
                .isEqualTo(Map.of(0, List.of("successor-0"), 1, List.of("successor-1")));
        assertThat(allValues(readValues(bootstrap(), topic, 2, READ_UNCOMMITTED)))
                .contains("zombie-0", "zombie-1", "successor-0", "successor-1")
                .doesNotContain("zombie-late");
    }

    @Test
    void anAbandonedTransactionIsAbortedAfterItsTimeoutAndTheLastStableOffsetMovesOn() throws Exception {
        String topic = uniqueTopic("abandoned");
        createTopic(shared.admin(), topic, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<byte[], byte[]> stuck = transactionalProducer(
                        bootstrap(), "abandoned-" + topic, Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "1500"));
                KafkaProducer<byte[], byte[]> plain = shared.broker().producer(Map.of());
                KafkaConsumer<byte[], byte[]> committedReader =
                        TxnClients.consumer(bootstrap(), READ_COMMITTED, Map.of())) {
            stuck.initTransactions();
            stuck.beginTransaction();
            stuck.send(record(topic, 0, "stuck")).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            plain.send(record(topic, 0, "after")).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

            assertThat(committedReader.endOffsets(List.of(tp), TIMEOUT).get(tp))
                    .as("the open transaction holds the last stable offset at its first record")
                    .isZero();
            List<ProducerState> producers = shared.admin()
                    .describeProducers(List.of(tp))
                    .partitionResult(tp)
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                    .activeProducers();
            assertThat(producers)
                    .filteredOn(p -> p.currentTransactionStartOffset().isPresent())
                    .singleElement()
                    .satisfies(
                            p -> assertThat(p.currentTransactionStartOffset()).hasValue(0L));
            await().atMost(TIMEOUT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() ->
                            committedReader.endOffsets(List.of(tp), TIMEOUT).get(tp) > 2);
        }
        assertThat(readValues(bootstrap(), topic, 1, READ_COMMITTED)).isEqualTo(Map.of(0, List.of("after")));
    }
}

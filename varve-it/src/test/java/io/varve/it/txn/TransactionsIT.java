package io.varve.it.txn;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.it.RawClient;
import io.varve.it.SharedBroker;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Transactions through the coordinator: two-phase commit and abort, fencing, timeouts, admin visibility. */
class TransactionsIT {
    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(Map.of(
            "transaction.state.log.num.partitions", "3",
            "transaction.abort.timed.out.transaction.cleanup.interval.ms", "200"));

    private static <T> T get(KafkaFuture<T> f) throws Exception {
        return f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    private static KafkaProducer<byte[], byte[]> transactional(String transactionalId, Map<String, Object> extra) {
        Map<String, Object> config = new java.util.HashMap<>(Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId, ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000"));
        config.putAll(extra);
        return shared.broker().producer(config);
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, int partition, String value) {
        return new ProducerRecord<>(topic, partition, null, value.getBytes(UTF_8));
    }

    private static TransactionDescription describe(String transactionalId) throws Exception {
        return get(shared.admin().describeTransactions(List.of(transactionalId)).description(transactionalId));
    }

    /** Polls (bounded) until the transaction reaches {@code state}. */
    private static TransactionDescription awaitState(String transactionalId, TransactionState state) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        TransactionDescription d = describe(transactionalId);
        while (d.state() != state && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            d = describe(transactionalId);
        }
        assertThat(d.state()).isEqualTo(state);
        return d;
    }

    @Test
    void committedAndAbortedTransactionsAcrossTopicsCompleteAndAreDescribed() throws Exception {
        String a = uniqueTopic("txn-a");
        String b = uniqueTopic("txn-b");
        createTopic(shared.admin(), a, 2);
        createTopic(shared.admin(), b, 3);
        String id = "commit-abort-" + a;
        try (KafkaProducer<byte[], byte[]> producer = transactional(id, Map.of())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(record(a, 0, "a0"));
            producer.send(record(a, 1, "a1"));
            producer.send(record(b, 2, "b2")).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

            TransactionDescription ongoing = describe(id);
            assertThat(ongoing.state()).isEqualTo(TransactionState.ONGOING);
            assertThat(ongoing.topicPartitions()).contains(new TopicPartition(b, 2));
            Collection<TransactionListing> listed = get(shared.admin()
                    .listTransactions(new ListTransactionsOptions().filterStates(List.of(TransactionState.ONGOING)))
                    .all());
            assertThat(listed).extracting(TransactionListing::transactionalId).contains(id);

            producer.commitTransaction();
            awaitState(id, TransactionState.COMPLETE_COMMIT);

            producer.beginTransaction();
            producer.send(record(b, 0, "aborted")).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            producer.abortTransaction();
            TransactionDescription aborted = awaitState(id, TransactionState.COMPLETE_ABORT);
            assertThat(aborted.topicPartitions()).isEmpty();
            assertThat(aborted.producerId()).isEqualTo(ongoing.producerId());

            producer.beginTransaction();
            producer.send(record(a, 0, "again"));
            producer.commitTransaction();
            awaitState(id, TransactionState.COMPLETE_COMMIT);
        }
        Collection<TransactionListing> byProducer = get(shared.admin()
                .listTransactions(new ListTransactionsOptions()
                        .filterProducerIds(List.of(describe(id).producerId())))
                .all());
        assertThat(byProducer).extracting(TransactionListing::transactionalId).containsExactly(id);
    }

    @Test
    void aSecondProducerWithTheSameTransactionalIdFencesTheFirst() throws Exception {
        String topic = uniqueTopic("txn-fence");
        createTopic(shared.admin(), topic, 1);
        String id = "fenced-" + topic;
        try (KafkaProducer<byte[], byte[]> zombie = transactional(id, Map.of());
                KafkaProducer<byte[], byte[]> successor = transactional(id, Map.of())) {
            zombie.initTransactions();
            zombie.beginTransaction();
            zombie.send(record(topic, 0, "zombie")).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

            // The successor's InitProducerId bumps the epoch and aborts the zombie's open transaction.
            successor.initTransactions();
            TransactionDescription afterFence = describe(id);
            assertThat(afterFence.state()).isEqualTo(TransactionState.EMPTY);
            assertThat(afterFence.producerEpoch()).isEqualTo(2);

            assertThatThrownBy(zombie::commitTransaction).isInstanceOf(ProducerFencedException.class);

            successor.beginTransaction();
            successor.send(record(topic, 0, "successor"));
            successor.commitTransaction();
            awaitState(id, TransactionState.COMPLETE_COMMIT);
        }
    }

    @Test
    void anAbandonedTransactionIsAbortedAfterItsTimeout() throws Exception {
        String topic = uniqueTopic("txn-timeout");
        createTopic(shared.admin(), topic, 1);
        String id = "abandoned-" + topic;
        try (KafkaProducer<byte[], byte[]> producer =
                transactional(id, Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "1000"))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(record(topic, 0, "never committed")).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            TransactionDescription aborted = awaitState(id, TransactionState.COMPLETE_ABORT);
            assertThat(aborted.producerEpoch()).isEqualTo(1);
        }
    }

    @Test
    void theBrokerVerificationPathReportsWhichPartitionsAreInTheOngoingTransaction() throws Exception {
        String topic = uniqueTopic("txn-verify");
        createTopic(shared.admin(), topic, 2);
        String id = "verify-" + topic;
        try (KafkaProducer<byte[], byte[]> producer = transactional(id, Map.of());
                RawClient raw = new RawClient(shared.broker().port())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(record(topic, 0, "in")).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            TransactionDescription d = describe(id);

            AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics =
                    new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
            topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic()
                    .setName(topic)
                    .setPartitions(List.of(0, 1)));
            AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection txns =
                    new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection();
            txns.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction()
                    .setTransactionalId(id)
                    .setProducerId(d.producerId())
                    .setProducerEpoch((short) d.producerEpoch())
                    .setVerifyOnly(true)
                    .setTopics(topics));
            AddPartitionsToTxnResponseData response =
                    raw.send(new AddPartitionsToTxnRequestData().setTransactions(txns), (short) 4);
            Map<TopicPartition, Errors> errors = AddPartitionsToTxnResponse.errorsForTransaction(
                    response.resultsByTransaction().find(id).topicResults());
            assertThat(errors)
                    .containsExactlyInAnyOrderEntriesOf(Map.of(
                            new TopicPartition(topic, 0), Errors.NONE,
                            new TopicPartition(topic, 1), Errors.INVALID_TXN_STATE));
            producer.abortTransaction();
        }
    }

    @Test
    void describingAnUnknownTransactionalIdFails() {
        assertThatThrownBy(() -> describe("no-such-transactional-id"))
                .hasCauseInstanceOf(org.apache.kafka.common.errors.TransactionalIdNotFoundException.class);
    }
}

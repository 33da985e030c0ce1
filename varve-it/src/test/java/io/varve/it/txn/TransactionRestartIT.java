package io.varve.it.txn;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.TestBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The coordinator's state survives a restart: it is replayed from {@code __transaction_state}. */
class TransactionRestartIT {
    @TempDir
    Path dataDir;

    private static TransactionDescription describe(Admin admin, String id) throws Exception {
        return admin.describeTransactions(List.of(id)).description(id).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void anOngoingTransactionIsReplayedAfterARestartAndAbortedWhenANewProducerFencesTheOldOne() throws Exception {
        Map<String, String> overrides = Map.of("transaction.state.log.num.partitions", "2");
        String topic = "restart-txn";
        String id = "restart-" + topic;
        try (TestBroker broker = TestBroker.start(dataDir, overrides)) {
            try (Admin admin = broker.admin()) {
                createTopic(admin, topic, 2);
            }
            KafkaProducer<byte[], byte[]> before = broker.producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id));
            before.initTransactions();
            before.beginTransaction();
            before.send(new ProducerRecord<>(topic, 1, null, "open".getBytes(UTF_8)))
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            broker.restart();
            before.close(Duration.ZERO);

            try (Admin admin = broker.admin();
                    KafkaProducer<byte[], byte[]> after = broker.producer(Map.of(
                            ProducerConfig.TRANSACTIONAL_ID_CONFIG, id, ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000"))) {
                TransactionDescription replayed = describe(admin, id);
                assertThat(replayed.state()).isEqualTo(TransactionState.ONGOING);
                assertThat(replayed.topicPartitions()).containsExactly(new TopicPartition(topic, 1));
                assertThat(replayed.producerEpoch()).isZero();

                after.initTransactions();
                TransactionDescription fenced = describe(admin, id);
                assertThat(fenced.state()).isEqualTo(TransactionState.EMPTY);
                assertThat(fenced.producerId()).isEqualTo(replayed.producerId());
                assertThat(fenced.producerEpoch()).isEqualTo(2);
            }
        }
    }

    private static Long committedOffset(Admin admin, String group, TopicPartition tp) throws Exception {
        OffsetAndMetadata o = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .get(tp);
        return o == null ? null : o.offset();
    }

    @Test
    void transactionalOffsetsAreReplayedAfterARestartCommittedOnesVisibleOpenOnesPendingUntilAborted()
            throws Exception {
        String topic = "restart-offsets";
        String group = "restart-offsets-group";
        TopicPartition tp = new TopicPartition(topic, 0);
        try (TestBroker broker = TestBroker.start(
                dataDir, Map.of("transaction.state.log.num.partitions", "2", "offsets.topic.num.partitions", "2"))) {
            try (Admin admin = broker.admin()) {
                createTopic(admin, topic, 1);
            }
            KafkaProducer<byte[], byte[]> committing =
                    broker.producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "offsets-committing"));
            KafkaProducer<byte[], byte[]> open =
                    broker.producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "offsets-open"));
            committing.initTransactions();
            committing.beginTransaction();
            committing.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(4)), new ConsumerGroupMetadata(group));
            committing.commitTransaction();
            open.initTransactions();
            open.beginTransaction();
            open.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(9)), new ConsumerGroupMetadata(group));
            broker.restart();
            committing.close(Duration.ZERO);
            open.close(Duration.ZERO);

            try (Admin admin = broker.admin();
                    KafkaProducer<byte[], byte[]> reopened = broker.producer(Map.of(
                            ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                            "offsets-open",
                            ProducerConfig.MAX_BLOCK_MS_CONFIG,
                            "30000"))) {
                await().atMost(TIMEOUT)
                        .pollInterval(Duration.ofMillis(100))
                        .ignoreExceptions()
                        .until(() -> Long.valueOf(4).equals(committedOffset(admin, group, tp)));
                reopened.initTransactions();
                try (KafkaConsumer<byte[], byte[]> stable = broker.consumer(Map.of(
                        ConsumerConfig.GROUP_ID_CONFIG,
                        group,
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed"))) {
                    assertThat(stable.committed(Set.of(tp), TIMEOUT).get(tp).offset())
                            .as("require_stable waits out the open transaction, which the new instance aborted")
                            .isEqualTo(4);
                }
                reopened.beginTransaction();
                reopened.sendOffsetsToTransaction(
                        Map.of(tp, new OffsetAndMetadata(11)), new ConsumerGroupMetadata(group));
                reopened.commitTransaction();
                await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(100)).until(() -> Long.valueOf(11)
                        .equals(committedOffset(admin, group, tp)));
            }
        }
    }
}

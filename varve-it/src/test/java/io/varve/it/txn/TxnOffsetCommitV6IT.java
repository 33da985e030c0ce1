package io.varve.it.txn;

import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.RawClient;
import io.varve.it.SharedBroker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * TxnOffsetCommit v6 (KIP-1319): topics by id, OffsetCommit's GROUP_ID_NOT_FOUND and STALE_MEMBER_EPOCH, and
 * kafka-clients 4.4's transactional producer committing offsets with it.
 */
class TxnOffsetCommitV6IT {
    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(Map.of(
            "offsets.topic.num.partitions", "2",
            "transaction.state.log.num.partitions", "2",
            "transaction.state.log.replication.factor", "1",
            "transaction.state.log.min.isr", "1"));

    private static String topic;
    private static Uuid topicId;

    @BeforeAll
    static void createTopicOfOnePartition() throws Exception {
        topic = uniqueTopic("txn-v6");
        topicId = io.varve.it.ClientSupport.createTopic(shared.admin(), topic, 1);
    }

    @Test
    void theBrokerServesVersion6AndKafkaClients44CommitsTransactionalOffsetsWithIt() throws Exception {
        try (RawClient c = new RawClient(shared.broker().port())) {
            ApiVersionsResponseData versions = c.send(new ApiVersionsRequestData(), (short) 3);
            assertThat(versions.apiKeys().find(ApiKeys.TXN_OFFSET_COMMIT.id).maxVersion())
                    .isEqualTo((short) 6);
        }
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<byte[], byte[]> producer =
                TxnClients.transactionalProducer(shared.broker().bootstrap(), "txn-v6-client", Map.of())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, new byte[] {1}));
            producer.sendOffsetsToTransaction(
                    Map.of(tp, new OffsetAndMetadata(42, "from v6")), new ConsumerGroupMetadata("g-txn-v6"));
            producer.commitTransaction();
        }
        Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(30))
                .until(() -> shared.admin()
                                .listConsumerGroupOffsets("g-txn-v6")
                                .partitionsToOffsetAndMetadata()
                                .get(10, TimeUnit.SECONDS)
                                .get(tp)
                        != null);
        OffsetAndMetadata committed = shared.admin()
                .listConsumerGroupOffsets("g-txn-v6")
                .partitionsToOffsetAndMetadata()
                .get(10, TimeUnit.SECONDS)
                .get(tp);
        assertThat(committed.offset()).isEqualTo(42);
        assertThat(committed.metadata()).isEqualTo("from v6");
    }

    @Test
    void version6NamesTopicsByIdAndAnswersOffsetCommitsErrors() throws Exception {
        try (RawClient c = new RawClient(shared.broker().port())) {
            InitProducerIdResponseData producer = initProducerId(c, "txn-v6-raw");

            TxnOffsetCommitResponseData unknown = c.send(commit(producer, "g-raw", -1, Uuid.randomUuid()), (short) 6);
            assertThat(unknown.topics()).singleElement().satisfies(t -> {
                assertThat(t.topicId()).isNotEqualTo(topicId);
                assertThat(t.partitions().get(0).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
            });

            TxnOffsetCommitResponseData noGroup = sendOnceCoordinated(c, commit(producer, "g-missing", 3, topicId), 6);
            assertThat(noGroup.topics()).singleElement().satisfies(t -> {
                assertThat(t.topicId()).isEqualTo(topicId);
                assertThat(t.partitions().get(0).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
            });

            TxnOffsetCommitRequestData byName = commit(producer, "g-missing", 3, topicId);
            byName.topics().get(0).setName(topic);
            TxnOffsetCommitResponseData legacy = sendOnceCoordinated(c, byName, 5);
            assertThat(legacy.topics().get(0).name()).isEqualTo(topic);
            assertThat(legacy.topics().get(0).partitions().get(0).errorCode())
                    .as("before v6 a missing group is an illegal generation")
                    .isEqualTo(Errors.ILLEGAL_GENERATION.code());

            TxnOffsetCommitResponseData simple = sendOnceCoordinated(c, commit(producer, "g-simple", -1, topicId), 6);
            assertThat(simple.topics()).singleElement().satisfies(t -> {
                assertThat(t.topicId()).isEqualTo(topicId);
                assertThat(t.partitions().get(0).errorCode()).isEqualTo(Errors.NONE.code());
            });
        }
    }

    /** Sends until the group's coordinator is up (the first FindCoordinator creates {@code __consumer_offsets}). */
    private static TxnOffsetCommitResponseData sendOnceCoordinated(
            RawClient c, TxnOffsetCommitRequestData request, int version) {
        java.util.concurrent.atomic.AtomicReference<TxnOffsetCommitResponseData> answer =
                new java.util.concurrent.atomic.AtomicReference<>();
        Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> {
            c.send(
                    new FindCoordinatorRequestData()
                            .setKeyType((byte) 0)
                            .setCoordinatorKeys(List.of(request.groupId())),
                    (short) 4);
            TxnOffsetCommitResponseData r = c.send(request, (short) version);
            short code = r.topics().get(0).partitions().get(0).errorCode();
            answer.set(r);
            return code != Errors.NOT_COORDINATOR.code()
                    && code != Errors.COORDINATOR_LOAD_IN_PROGRESS.code()
                    && code != Errors.COORDINATOR_NOT_AVAILABLE.code();
        });
        return answer.get();
    }

    private static TxnOffsetCommitRequestData commit(
            InitProducerIdResponseData producer, String group, int generation, Uuid id) {
        return new TxnOffsetCommitRequestData()
                .setTransactionalId("txn-v6-raw")
                .setGroupId(group)
                .setProducerId(producer.producerId())
                .setProducerEpoch(producer.producerEpoch())
                .setGenerationIdOrMemberEpoch(generation)
                .setMemberId(generation < 0 ? "" : "m1")
                .setTopics(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic()
                        .setTopicId(id)
                        .setPartitions(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                                .setPartitionIndex(0)
                                .setCommittedOffset(7)))));
    }

    /** InitProducerId for a transactional id, once its coordinator is up (the first FindCoordinator creates it). */
    private static InitProducerIdResponseData initProducerId(RawClient c, String transactionalId) {
        java.util.concurrent.atomic.AtomicReference<InitProducerIdResponseData> answer =
                new java.util.concurrent.atomic.AtomicReference<>();
        Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> {
            FindCoordinatorResponseData found = c.send(
                    new FindCoordinatorRequestData().setKeyType((byte) 1).setCoordinatorKeys(List.of(transactionalId)),
                    (short) 4);
            if (found.coordinators().get(0).errorCode() != Errors.NONE.code()) {
                return false;
            }
            InitProducerIdResponseData r = c.send(
                    new InitProducerIdRequestData()
                            .setTransactionalId(transactionalId)
                            .setTransactionTimeoutMs(60_000)
                            .setProducerId(-1)
                            .setProducerEpoch((short) -1),
                    (short) 5);
            answer.set(r);
            return r.errorCode() == Errors.NONE.code();
        });
        return answer.get();
    }
}

package io.varve.it.txn;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.RawClient;
import io.varve.it.TestBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-890 part 1 over the wire: a transactional write that reaches the partition leader after its transaction was
 * aborted (a delayed produce, as a slow network gives it) is refused when the leader verifies writes with the
 * transaction coordinator ({@code transaction.partition.verification.enable=true}, the default), and without the
 * verification it opens a transaction no coordinator knows, which holds read_committed consumers at its first offset.
 */
class TransactionVerificationIT {
    private static final String TOPIC = "verified";
    private static final short PRODUCE_V11 = 11;

    @TempDir
    Path dir;

    @Test
    void aDelayedWriteOfAnAbortedTransactionIsRefusedAndLeavesNoHangingTransaction() throws Exception {
        try (TestBroker broker = TestBroker.start(dir.resolve("on"), Map.of())) {
            LateWrite late = abortThenWriteLate(broker.port(), "late-verified");
            assertThat(late.error()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
            assertThat(late.lastStableOffset()).isEqualTo(late.logEndOffset());
        }
    }

    @Test
    void withoutVerificationTheDelayedWriteHangsATransactionThatBlocksReadCommitted() throws Exception {
        try (TestBroker broker =
                TestBroker.start(dir.resolve("off"), Map.of("transaction.partition.verification.enable", "false"))) {
            LateWrite late = abortThenWriteLate(broker.port(), "late-unverified");
            assertThat(late.error()).isEqualTo(Errors.NONE);
            assertThat(late.lastStableOffset()).isLessThan(late.logEndOffset());
        }
    }

    @Test
    void withVerificationOffATransactionsV2ProducerStillHasItsPartitionsAddedByTheLeaderAndCommits() throws Exception {
        try (TestBroker broker =
                TestBroker.start(dir.resolve("off-v2"), Map.of("transaction.partition.verification.enable", "false"))) {
            createTopic(broker.port(), 2);
            String bootstrap = "127.0.0.1:" + broker.port();
            try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> producer =
                    TxnClients.transactionalProducer(bootstrap, "v2-unverified", Map.of())) {
                producer.initTransactions();
                producer.beginTransaction();
                for (int p = 0; p < 2; p++) {
                    producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(
                            TOPIC, p, null, ("v" + p).getBytes(UTF_8)));
                }
                producer.commitTransaction();
            }
            assertThat(TxnClients.allValues(TxnClients.readValues(bootstrap, TOPIC, 2, TxnClients.READ_COMMITTED)))
                    .containsExactly("v0", "v1");
        }
    }

    record LateWrite(Errors error, long lastStableOffset, long logEndOffset) {}

    /** Begins a transaction on partition 0, writes, aborts, waits for the marker, then writes the "delayed" batch. */
    private static LateWrite abortThenWriteLate(int port, String transactionalId) throws Exception {
        createTopic(port);
        try (RawClient client = new RawClient("127.0.0.1", port, Duration.ofSeconds(15))) {
            // the first FindCoordinator creates __transaction_state; InitProducerId succeeds once it is loaded
            InitProducerIdResponseData init = Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(
                            () -> findCoordinator(client, transactionalId)
                                    ? initProducerId(client, transactionalId)
                                    : null,
                            r -> r != null && r.errorCode() == Errors.NONE.code());
            long pid = init.producerId();
            short epoch = init.producerEpoch();
            AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics =
                    new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
            topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic()
                    .setName(TOPIC)
                    .setPartitions(List.of(0)));
            AddPartitionsToTxnResponseData added = client.send(
                    new AddPartitionsToTxnRequestData()
                            .setV3AndBelowTransactionalId(transactionalId)
                            .setV3AndBelowProducerId(pid)
                            .setV3AndBelowProducerEpoch(epoch)
                            .setV3AndBelowTopics(topics),
                    (short) 3);
            assertThat(added.resultsByTopicV3AndBelow()
                            .iterator()
                            .next()
                            .resultsByPartition()
                            .iterator()
                            .next()
                            .partitionErrorCode())
                    .isEqualTo(Errors.NONE.code());
            assertThat(produce(client, transactionalId, pid, epoch, 0, "in-txn"))
                    .isEqualTo(Errors.NONE);
            EndTxnResponseData ended = client.send(
                    new EndTxnRequestData()
                            .setTransactionalId(transactionalId)
                            .setProducerId(pid)
                            .setProducerEpoch(epoch)
                            .setCommitted(false),
                    (short) 4);
            assertThat(ended.errorCode()).isEqualTo(Errors.NONE.code());
            // the abort marker is in: the last stable offset has passed it
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> offset(client, (byte) 1) == offset(client, (byte) 0));

            Errors late = produce(client, transactionalId, pid, epoch, 1, "late");
            long logEnd = offset(client, (byte) 0);
            long stable = offset(client, (byte) 1);
            return new LateWrite(late, stable, logEnd);
        }
    }

    private static InitProducerIdResponseData initProducerId(RawClient client, String transactionalId)
            throws Exception {
        return client.send(
                new InitProducerIdRequestData()
                        .setTransactionalId(transactionalId)
                        .setTransactionTimeoutMs(60_000)
                        .setProducerId(-1)
                        .setProducerEpoch((short) -1),
                (short) 4);
    }

    /** FindCoordinator for the transactional id: the first one creates {@code __transaction_state}. */
    private static boolean findCoordinator(RawClient client, String transactionalId) throws Exception {
        org.apache.kafka.common.message.FindCoordinatorResponseData r = client.send(
                new org.apache.kafka.common.message.FindCoordinatorRequestData()
                        .setKeyType((byte) 1)
                        .setCoordinatorKeys(List.of(transactionalId)),
                (short) 4);
        return r.coordinators().get(0).errorCode() == Errors.NONE.code();
    }

    private static Errors produce(RawClient client, String transactionalId, long pid, short epoch, int seq, String v)
            throws Exception {
        MemoryRecords records = MemoryRecords.withTransactionalRecords(
                Compression.NONE, pid, epoch, seq, new SimpleRecord(v.getBytes(UTF_8)));
        ProduceRequestData.TopicProduceDataCollection data = new ProduceRequestData.TopicProduceDataCollection();
        data.add(new ProduceRequestData.TopicProduceData()
                .setName(TOPIC)
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                        .setIndex(0)
                        .setRecords(records))));
        ProduceResponseData response = client.send(
                new ProduceRequestData()
                        .setTransactionalId(transactionalId)
                        .setAcks((short) -1)
                        .setTimeoutMs(10_000)
                        .setTopicData(data),
                PRODUCE_V11);
        return Errors.forCode(response.responses()
                .iterator()
                .next()
                .partitionResponses()
                .get(0)
                .errorCode());
    }

    /** ListOffsets LATEST: the log end offset (read_uncommitted, 0) or the last stable offset (read_committed, 1). */
    private static long offset(RawClient client, byte isolation) throws Exception {
        ListOffsetsResponseData response = client.send(
                new ListOffsetsRequestData()
                        .setReplicaId(-1)
                        .setIsolationLevel(isolation)
                        .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                                .setName(TOPIC)
                                .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                        .setPartitionIndex(0)
                                        .setTimestamp(-1)
                                        .setCurrentLeaderEpoch(-1))))),
                (short) 7);
        return response.topics().get(0).partitions().get(0).offset();
    }

    private static void createTopic(int port) throws Exception {
        createTopic(port, 1);
    }

    private static void createTopic(int port, int partitions) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        try (Admin admin = Admin.create(p)) {
            io.varve.it.ClientSupport.createTopic(admin, TOPIC, partitions);
        }
    }
}

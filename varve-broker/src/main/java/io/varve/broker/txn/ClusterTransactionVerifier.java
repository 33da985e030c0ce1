package io.varve.broker.txn;

import io.varve.broker.group.TransactionVerifier;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.network.client.NodeClient;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The check behind TxnOffsetCommit in a cluster: whether the group's {@code __consumer_offsets} partition is in the
 * producer's ongoing transaction is asked of the transaction's coordinator, wherever it is. This broker's own
 * coordinator answers in process; another broker's is asked with AddPartitionsToTxn v4 {@code verifyOnly} over the
 * inter-broker listener, as Kafka's brokers verify (KIP-890). When that broker cannot be reached the answer is
 * NOT_COORDINATOR (retriable: the client looks the coordinator up and commits again).
 */
public final class ClusterTransactionVerifier implements TransactionVerifier {
    static final short VERIFY_VERSION = 4;
    static final long REQUEST_TIMEOUT_MS = 10_000;

    private final int nodeId;
    private final TransactionCoordinatorRuntime local;
    private final MetadataCache cache;
    private final String listenerName;
    private final NodeClient client;

    public ClusterTransactionVerifier(
            int nodeId,
            TransactionCoordinatorRuntime local,
            MetadataCache cache,
            String listenerName,
            NodeClient client) {
        this.nodeId = nodeId;
        this.local = local;
        this.cache = cache;
        this.listenerName = listenerName;
        this.client = client;
    }

    @Override
    public CompletableFuture<Errors> verifyInTransaction(
            String transactionalId, long producerId, short producerEpoch, TopicPartition partition) {
        int coordinator = local.coordinatorNode(transactionalId);
        if (coordinator == nodeId || coordinator < 0) {
            return local.verifyInTransaction(transactionalId, producerId, producerEpoch, partition);
        }
        Optional<InetSocketAddress> address = cache.snapshot().brokers().stream()
                .filter(b -> b.nodeId() == coordinator)
                .findFirst()
                .flatMap(b -> b.endpoint(listenerName))
                .map(e -> new InetSocketAddress(e.host(), e.port()));
        if (address.isEmpty()) {
            return CompletableFuture.completedFuture(Errors.NOT_COORDINATOR);
        }
        AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
        topics.add(
                new AddPartitionsToTxnTopic().setName(partition.topic()).setPartitions(List.of(partition.partition())));
        AddPartitionsToTxnTransactionCollection transactions = new AddPartitionsToTxnTransactionCollection();
        transactions.add(new AddPartitionsToTxnTransaction()
                .setTransactionalId(transactionalId)
                .setProducerId(producerId)
                .setProducerEpoch(producerEpoch)
                .setVerifyOnly(true)
                .setTopics(topics));
        AddPartitionsToTxnRequestData request = new AddPartitionsToTxnRequestData().setTransactions(transactions);
        return client.send(address.get(), ApiKeys.ADD_PARTITIONS_TO_TXN, VERIFY_VERSION, request, REQUEST_TIMEOUT_MS)
                .handle((response, e) -> e != null
                        ? Errors.NOT_COORDINATOR
                        : errorFor((AddPartitionsToTxnResponseData) response.body(), transactionalId, partition));
    }

    private static Errors errorFor(AddPartitionsToTxnResponseData response, String transactionalId, TopicPartition tp) {
        if (response.errorCode() != Errors.NONE.code()) {
            return Errors.forCode(response.errorCode());
        }
        var result = response.resultsByTransaction().find(transactionalId);
        var topic = result == null ? null : result.topicResults().find(tp.topic());
        var partition = topic == null ? null : topic.resultsByPartition().find(tp.partition());
        return partition == null ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(partition.partitionErrorCode());
    }
}

package io.varve.broker.txn;

import io.varve.broker.api.ProduceTxnVerifier;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.network.client.NodeClient;
import io.varve.coordinator.txn.TxnApi;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 * The partition leader's questions to the transaction coordinators (KIP-890), as Kafka's AddPartitionsToTxnManager
 * asks them, and the group coordinator's for TxnOffsetCommit: a transactional id coordinated here is asked in process; the others are batched per coordinator node,
 * one AddPartitionsToTxn (v4 when every entry is {@code verifyOnly}, v5 when one adds a partition for a transactions
 * v2 producer) in flight per node, and whatever queued meanwhile leaves as the next request. A queue per node holds at
 * most {@link #MAX_QUEUED_PER_NODE} questions; beyond, and when the coordinator cannot be reached, the answer is
 * NOT_COORDINATOR (the produce answers NOT_ENOUGH_REPLICAS and the client retries).
 */
public final class TxnVerificationBatcher implements ProduceTxnVerifier, io.varve.broker.group.TransactionVerifier {
    static final short VERIFY_VERSION = 4;
    static final short ADD_VERSION = 5;
    static final int MAX_QUEUED_PER_NODE = 10_000;
    static final long REQUEST_TIMEOUT_MS = 10_000;

    private final int nodeId;
    private final TransactionCoordinatorRuntime local;
    private final MetadataCache cache;
    private final String listenerName;
    private final NodeClient client;
    private final Map<Integer, NodeQueue> queues = new HashMap<>();

    public TxnVerificationBatcher(
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

    /** TxnOffsetCommit before v5: the group's offsets partition must be in the transaction already. */
    @Override
    public CompletableFuture<Errors> verifyInTransaction(
            String transactionalId, long producerId, short producerEpoch, TopicPartition partition) {
        return verify(transactionalId, producerId, producerEpoch, partition, false);
    }

    /** TxnOffsetCommit v5+ (transactions v2): the offsets partition is added to the transaction. */
    @Override
    public CompletableFuture<Errors> addToTransaction(
            String transactionalId, long producerId, short producerEpoch, TopicPartition partition) {
        return verify(transactionalId, producerId, producerEpoch, partition, true);
    }

    @Override
    public CompletableFuture<Errors> verify(
            String transactionalId, long producerId, short producerEpoch, TopicPartition partition, boolean add) {
        int coordinator = local.coordinatorNode(transactionalId);
        if (coordinator == nodeId || coordinator < 0) {
            TxnApi.AddPartitionsRequest r =
                    new TxnApi.AddPartitionsRequest(transactionalId, producerId, producerEpoch, Set.of(partition));
            if (add) {
                return local.run(transactionalId, shard -> shard.addPartitions(r))
                        .handle((error, e) -> e != null ? TxnHandlers.errorOf(e) : error);
            }
            return local.verifyInTransaction(transactionalId, producerId, producerEpoch, partition);
        }
        Question q =
                new Question(transactionalId, producerId, producerEpoch, partition, add, new CompletableFuture<>());
        List<Question> batch;
        synchronized (queues) {
            NodeQueue queue = queues.computeIfAbsent(coordinator, n -> new NodeQueue());
            if (queue.waiting.size() >= MAX_QUEUED_PER_NODE) {
                return CompletableFuture.completedFuture(Errors.NOT_COORDINATOR);
            }
            queue.waiting.add(q);
            batch = queue.inFlight ? null : queue.takeBatch();
        }
        if (batch != null) {
            send(coordinator, batch);
        }
        return q.answer;
    }

    record Question(
            String transactionalId,
            long producerId,
            short producerEpoch,
            TopicPartition partition,
            boolean add,
            CompletableFuture<Errors> answer) {}

    /** Guarded by {@code queues}. */
    static final class NodeQueue {
        final ArrayDeque<Question> waiting = new ArrayDeque<>();
        boolean inFlight;

        /**
         * The next request's questions: one transactional id appears once in a request, so a second question of the
         * same id with another producer or kind waits for the next.
         */
        List<Question> takeBatch() {
            List<Question> batch = new ArrayList<>();
            Map<String, Question> byId = new HashMap<>();
            ArrayDeque<Question> later = new ArrayDeque<>();
            while (!waiting.isEmpty()) {
                Question q = waiting.poll();
                Question first = byId.putIfAbsent(q.transactionalId(), q);
                if (first == null
                        || (first.producerId() == q.producerId()
                                && first.producerEpoch() == q.producerEpoch()
                                && first.add() == q.add())) {
                    batch.add(q);
                } else {
                    later.add(q);
                }
            }
            waiting.addAll(later);
            inFlight = !batch.isEmpty();
            return batch;
        }
    }

    private void send(int coordinator, List<Question> batch) {
        Optional<InetSocketAddress> address = cache.snapshot().brokers().stream()
                .filter(b -> b.nodeId() == coordinator)
                .findFirst()
                .flatMap(b -> b.endpoint(listenerName))
                .map(e -> new InetSocketAddress(e.host(), e.port()));
        if (address.isEmpty()) {
            finish(coordinator, batch, null);
            return;
        }
        Map<String, AddPartitionsToTxnTransaction> byId = new LinkedHashMap<>();
        boolean anyAdd = false;
        for (Question q : batch) {
            anyAdd |= q.add();
            AddPartitionsToTxnTransaction t =
                    byId.computeIfAbsent(q.transactionalId(), id -> new AddPartitionsToTxnTransaction()
                            .setTransactionalId(id)
                            .setProducerId(q.producerId())
                            .setProducerEpoch(q.producerEpoch())
                            .setVerifyOnly(!q.add())
                            .setTopics(new AddPartitionsToTxnTopicCollection()));
            AddPartitionsToTxnTopic topic = t.topics().find(q.partition().topic());
            if (topic == null) {
                topic = new AddPartitionsToTxnTopic().setName(q.partition().topic());
                t.topics().add(topic);
            }
            if (!topic.partitions().contains(q.partition().partition())) {
                topic.partitions().add(q.partition().partition());
            }
        }
        AddPartitionsToTxnTransactionCollection transactions = new AddPartitionsToTxnTransactionCollection();
        byId.values().forEach(transactions::add);
        AddPartitionsToTxnRequestData request = new AddPartitionsToTxnRequestData().setTransactions(transactions);
        client.send(
                        address.get(),
                        ApiKeys.ADD_PARTITIONS_TO_TXN,
                        anyAdd ? ADD_VERSION : VERIFY_VERSION,
                        request,
                        REQUEST_TIMEOUT_MS)
                .whenComplete((response, e) -> finish(
                        coordinator, batch, e != null ? null : (AddPartitionsToTxnResponseData) response.body()));
    }

    /** Answers the batch ({@code response} null: the coordinator was not reached), then sends what queued meanwhile. */
    private void finish(int coordinator, List<Question> batch, AddPartitionsToTxnResponseData response) {
        for (Question q : batch) {
            q.answer.complete(response == null ? Errors.NOT_COORDINATOR : errorFor(response, q));
        }
        List<Question> next;
        synchronized (queues) {
            next = queues.get(coordinator).takeBatch();
        }
        if (!next.isEmpty()) {
            send(coordinator, next);
        }
    }

    private static Errors errorFor(AddPartitionsToTxnResponseData response, Question q) {
        if (response.errorCode() != Errors.NONE.code()) {
            return Errors.forCode(response.errorCode());
        }
        var result = response.resultsByTransaction().find(q.transactionalId());
        var topic =
                result == null ? null : result.topicResults().find(q.partition().topic());
        var partition = topic == null
                ? null
                : topic.resultsByPartition().find(q.partition().partition());
        return partition == null ? Errors.UNKNOWN_SERVER_ERROR : Errors.forCode(partition.partitionErrorCode());
    }
}

package io.varve.broker.txn;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.replica.ProducerIdManager;
import io.varve.coordinator.txn.TxnApi;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.ToIntFunction;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * InitProducerId (idempotent and transactional), AddPartitionsToTxn (v0-3), AddOffsetsToTxn, EndTxn,
 * DescribeTransactions and ListTransactions: wire classes in, {@link TransactionCoordinatorRuntime} events out.
 */
public final class TxnHandlers {
    private static final Logger log = LoggerFactory.getLogger(TxnHandlers.class);

    static final short FIRST_TRANSACTIONS_V2_END_VERSION = 5;

    private final TransactionCoordinatorRuntime runtime;
    private final ProducerIdManager producerIds;
    private final MetadataCache cache;
    private final ToIntFunction<String> offsetsPartitionForGroup;

    /** {@code offsetsPartitionForGroup}: the {@code __consumer_offsets} partition of a group id. */
    public TxnHandlers(
            TransactionCoordinatorRuntime runtime,
            ProducerIdManager producerIds,
            MetadataCache cache,
            ToIntFunction<String> offsetsPartitionForGroup) {
        this.runtime = runtime;
        this.producerIds = producerIds;
        this.cache = cache;
        this.offsetsPartitionForGroup = offsetsPartitionForGroup;
    }

    public CompletableFuture<ApiMessage> initProducerId(RequestContext request) {
        InitProducerIdRequestData data = request.body();
        String transactionalId = data.transactionalId();
        if (transactionalId == null) {
            return producerIds.nextProducerId().thenApply(id -> new InitProducerIdResponseData()
                    .setErrorCode(Errors.NONE.code())
                    .setProducerId(id)
                    .setProducerEpoch((short) 0));
        }
        if (transactionalId.isEmpty()) {
            return CompletableFuture.completedFuture(initError(Errors.INVALID_REQUEST));
        }
        TxnApi.InitProducerIdRequest r = new TxnApi.InitProducerIdRequest(
                transactionalId, data.transactionTimeoutMs(), data.producerId(), data.producerEpoch());
        return runtime.run(transactionalId, shard -> shard.initProducerId(r))
                .handle((resp, e) -> e != null
                        ? initError(errorOf(e))
                        : new InitProducerIdResponseData()
                                .setErrorCode(resp.error().code())
                                .setProducerId(resp.producerId())
                                .setProducerEpoch(resp.epoch()));
    }

    private static InitProducerIdResponseData initError(Errors error) {
        return new InitProducerIdResponseData()
                .setErrorCode(error.code())
                .setProducerId(-1)
                .setProducerEpoch((short) -1);
    }

    /**
     * v0-3, the client path: one transaction, its partitions all get one error. v4, the broker path: several
     * transactions; {@code verifyOnly} ones are checked (every partition already in the ongoing transaction), others
     * added as the client path does.
     */
    public CompletableFuture<ApiMessage> addPartitions(RequestContext request) {
        AddPartitionsToTxnRequestData data = request.body();
        if (request.apiVersion() >= 4) {
            return addPartitionsBatched(data);
        }
        List<TopicPartition> partitions = AddPartitionsToTxnRequest.getPartitions(data.v3AndBelowTopics());
        Set<TopicPartition> unknown = new HashSet<>();
        Map<String, TopicInfo> topics = cache.snapshot().topicsByName();
        for (TopicPartition tp : partitions) {
            TopicInfo t = topics.get(tp.topic());
            if (t == null || !t.partitions().containsKey(tp.partition())) {
                unknown.add(tp);
            }
        }
        if (!unknown.isEmpty()) {
            Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
            partitions.forEach(tp -> errors.put(
                    tp, unknown.contains(tp) ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.OPERATION_NOT_ATTEMPTED));
            return CompletableFuture.completedFuture(addPartitionsResponse(errors));
        }
        TxnApi.AddPartitionsRequest r = new TxnApi.AddPartitionsRequest(
                data.v3AndBelowTransactionalId(),
                data.v3AndBelowProducerId(),
                data.v3AndBelowProducerEpoch(),
                new HashSet<>(partitions));
        return runtime.run(r.transactionalId(), shard -> shard.addPartitions(r)).handle((error, e) -> {
            Errors result = e != null ? errorOf(e) : error;
            Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
            partitions.forEach(tp -> errors.put(tp, result));
            return addPartitionsResponse(errors);
        });
    }

    private CompletableFuture<ApiMessage> addPartitionsBatched(AddPartitionsToTxnRequestData data) {
        List<CompletableFuture<AddPartitionsToTxnResponseData.AddPartitionsToTxnResult>> all = new ArrayList<>();
        for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction t : data.transactions()) {
            List<TopicPartition> partitions = AddPartitionsToTxnRequest.getPartitions(t.topics());
            TxnApi.AddPartitionsRequest r = new TxnApi.AddPartitionsRequest(
                    t.transactionalId(), t.producerId(), t.producerEpoch(), new HashSet<>(partitions));
            CompletableFuture<Map<TopicPartition, Errors>> errors;
            if (t.verifyOnly()) {
                errors = runtime.run(r.transactionalId(), shard -> shard.verifyPartitions(r));
            } else {
                errors = runtime.run(r.transactionalId(), shard -> shard.addPartitions(r))
                        .thenApply(error -> {
                            Map<TopicPartition, Errors> out = new LinkedHashMap<>();
                            partitions.forEach(tp -> out.put(tp, error));
                            return out;
                        });
            }
            all.add(errors.handle((map, e) -> {
                Map<TopicPartition, Errors> out = map;
                if (e != null) {
                    Errors error = errorOf(e);
                    out = new LinkedHashMap<>();
                    for (TopicPartition tp : partitions) {
                        out.put(tp, error);
                    }
                }
                return AddPartitionsToTxnResponse.resultForTransaction(t.transactionalId(), out);
            }));
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            AddPartitionsToTxnResponseData.AddPartitionsToTxnResultCollection results =
                    new AddPartitionsToTxnResponseData.AddPartitionsToTxnResultCollection();
            all.forEach(f -> results.add(f.join()));
            return new AddPartitionsToTxnResponseData()
                    .setErrorCode(Errors.NONE.code())
                    .setResultsByTransaction(results);
        });
    }

    private static ApiMessage addPartitionsResponse(Map<TopicPartition, Errors> errors) {
        AddPartitionsToTxnResponseData.AddPartitionsToTxnResult result =
                AddPartitionsToTxnResponse.resultForTransaction(AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID, errors);
        return new AddPartitionsToTxnResponseData().setResultsByTopicV3AndBelow(result.topicResults());
    }

    /** Adds the group's {@code __consumer_offsets} partition to the transaction. */
    public CompletableFuture<ApiMessage> addOffsets(RequestContext request) {
        AddOffsetsToTxnRequestData data = request.body();
        TopicPartition offsetsPartition =
                new TopicPartition("__consumer_offsets", offsetsPartitionForGroup.applyAsInt(data.groupId()));
        TxnApi.AddPartitionsRequest r = new TxnApi.AddPartitionsRequest(
                data.transactionalId(), data.producerId(), data.producerEpoch(), Set.of(offsetsPartition));
        return runtime.run(r.transactionalId(), shard -> shard.addPartitions(r))
                .handle((error, e) ->
                        new AddOffsetsToTxnResponseData().setErrorCode((e != null ? errorOf(e) : error).code()));
    }

    public CompletableFuture<ApiMessage> endTxn(RequestContext request) {
        EndTxnRequestData data = request.body();
        // EndTxn v5 is the transactions v2 client (KIP-890 part 2): the coordinator bumps the epoch as it ends.
        boolean v2 = request.apiVersion() >= FIRST_TRANSACTIONS_V2_END_VERSION;
        TxnApi.EndTxnRequest r = new TxnApi.EndTxnRequest(
                data.transactionalId(), data.producerId(), data.producerEpoch(), data.committed(), v2);
        return runtime.run(r.transactionalId(), shard -> shard.end(r)).handle((answer, e) -> {
            TxnApi.EndTxnResponse out = e != null ? new TxnApi.EndTxnResponse(errorOf(e), -1, (short) -1) : answer;
            EndTxnResponseData response =
                    new EndTxnResponseData().setErrorCode(out.error().code());
            if (v2) {
                boolean ok = out.error() == Errors.NONE;
                response.setProducerId(ok ? out.producerId() : -1).setProducerEpoch(ok ? out.epoch() : (short) -1);
            }
            return response;
        });
    }

    public CompletableFuture<ApiMessage> describe(RequestContext request) {
        DescribeTransactionsRequestData data = request.body();
        List<CompletableFuture<DescribeTransactionsResponseData.TransactionState>> all = new ArrayList<>();
        for (String id : data.transactionalIds()) {
            all.add(runtime.run(id, shard -> shard.describe(List.of(id)))
                    .handle((list, e) -> e != null
                            ? new DescribeTransactionsResponseData.TransactionState()
                                    .setTransactionalId(id)
                                    .setErrorCode(errorOf(e).code())
                                    .setTransactionState("")
                                    .setProducerId(-1)
                                    .setProducerEpoch((short) -1)
                                    .setTransactionStartTimeMs(-1)
                            : describeState(list.get(0))));
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> new DescribeTransactionsResponseData()
                        .setTransactionStates(
                                all.stream().map(CompletableFuture::join).toList()));
    }

    private static DescribeTransactionsResponseData.TransactionState describeState(TxnApi.TxnDescription d) {
        DescribeTransactionsResponseData.TransactionState s = new DescribeTransactionsResponseData.TransactionState()
                .setTransactionalId(d.transactionalId())
                .setErrorCode(d.error().code());
        if (d.error() != Errors.NONE) {
            return s.setTransactionState("")
                    .setProducerId(-1)
                    .setProducerEpoch((short) -1)
                    .setTransactionStartTimeMs(-1);
        }
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        d.partitions().forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                .add(tp.partition()));
        DescribeTransactionsResponseData.TopicDataCollection topics =
                new DescribeTransactionsResponseData.TopicDataCollection();
        byTopic.forEach((topic, ps) -> topics.add(new DescribeTransactionsResponseData.TopicData()
                .setTopic(topic)
                .setPartitions(ps.stream().sorted().toList())));
        return s.setTransactionState(d.state().displayName())
                .setTransactionTimeoutMs(d.timeoutMs())
                .setTransactionStartTimeMs(d.txnStartMs())
                .setProducerId(d.producerId())
                .setProducerEpoch(d.epoch())
                .setTopics(topics);
    }

    public CompletableFuture<ApiMessage> list(RequestContext request) {
        ListTransactionsRequestData data = request.body();
        Pattern pattern = null;
        if (data.transactionalIdPattern() != null
                && !data.transactionalIdPattern().isEmpty()) {
            try {
                pattern = Pattern.compile(data.transactionalIdPattern());
            } catch (PatternSyntaxException e) {
                return CompletableFuture.completedFuture(
                        new ListTransactionsResponseData().setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code()));
            }
        }
        Pattern idPattern = pattern;
        TxnApi.ListFilter filter = new TxnApi.ListFilter(
                new HashSet<>(data.stateFilters()), new HashSet<>(data.producerIdFilters()), data.durationFilter());
        return runtime.runOnAll(shard -> shard.list(filter)).handle((results, e) -> {
            if (e != null) {
                return new ListTransactionsResponseData()
                        .setErrorCode(errorOf(e).code());
            }
            List<ListTransactionsResponseData.TransactionState> states = new ArrayList<>();
            Set<String> unknownStates = new java.util.LinkedHashSet<>(data.stateFilters().stream()
                    .filter(s -> io.varve.coordinator.txn.TxnState.fromName(s) == null)
                    .toList());
            for (TxnApi.ListResponse r : results) {
                for (TxnApi.ListedTxn t : r.transactions()) {
                    if (idPattern == null
                            || idPattern.matcher(t.transactionalId()).matches()) {
                        states.add(new ListTransactionsResponseData.TransactionState()
                                .setTransactionalId(t.transactionalId())
                                .setProducerId(t.producerId())
                                .setTransactionState(t.state().displayName()));
                    }
                }
            }
            return new ListTransactionsResponseData()
                    .setErrorCode(Errors.NONE.code())
                    .setUnknownStateFilters(List.copyOf(unknownStates))
                    .setTransactionStates(states);
        });
    }

    static Errors errorOf(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (!(cause instanceof ApiException)) {
            log.error("Transaction coordinator request failed", cause);
        }
        return Errors.forException(cause);
    }
}

package io.varve.broker.group;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.protocol.RequestContext;
import io.varve.coordinator.group.offset.OffsetApi;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * TxnOffsetCommit (v0-6): offsets committed as part of a producer's transaction. The transaction coordinator first
 * confirms that the group's {@code __consumer_offsets} partition is in the producer's ongoing transaction
 * (AddOffsetsToTxn came first, and the producer is not fenced), or from v5, the transactions v2 client that sends no
 * AddOffsetsToTxn, adds it (KIP-890 part 2); then the group coordinator checks the consumer's generation (KIP-447) and writes the
 * offsets as a transactional batch of the producer; they become visible when the COMMIT marker reaches that
 * partition. Unknown topics get UNKNOWN_TOPIC_OR_PARTITION. From v6 (KIP-1319) topics are named by id only, as in
 * OffsetCommit v10: an id this broker does not know gets UNKNOWN_TOPIC_ID for each of its partitions, the answer
 * carries ids, offsets are still kept by name; and a missing group or a stale member epoch get GROUP_ID_NOT_FOUND and
 * STALE_MEMBER_EPOCH instead of ILLEGAL_GENERATION.
 */
final class TxnOffsetCommitHandler implements ApiHandler {
    private static final short FIRST_LEADER_EPOCH_VERSION = 2;
    private static final short FIRST_MEMBER_VERSION = 3;
    /** Transactions v2: the client sends no AddOffsetsToTxn; this request adds the offsets partition itself. */
    private static final short FIRST_IMPLICIT_ADD_VERSION = 5;
    /** KIP-1319: topic ids instead of names, OffsetCommit's errors. */
    private static final short FIRST_TOPIC_ID_VERSION = 6;

    private final GroupCoordinatorRuntime runtime;
    private final MetadataCache cache;
    private final TransactionVerifier transactions;

    TxnOffsetCommitHandler(GroupCoordinatorRuntime runtime, MetadataCache cache, TransactionVerifier transactions) {
        this.runtime = runtime;
        this.cache = cache;
        this.transactions = transactions;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        TxnOffsetCommitRequestData data = request.body();
        short version = request.apiVersion();
        MetadataSnapshot snapshot = cache.snapshot();
        boolean byId = version >= FIRST_TOPIC_ID_VERSION;
        Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
        List<OffsetApi.CommitPartition> partitions = new ArrayList<>();
        List<TxnOffsetCommitResponseTopic> unknownIds = new ArrayList<>();
        for (TxnOffsetCommitRequestTopic t : data.topics()) {
            String name = t.name();
            if (byId) {
                MetadataSnapshot.TopicInfo topic = snapshot.topicsById().get(t.topicId());
                if (topic == null) {
                    TxnOffsetCommitResponseTopic unknown = new TxnOffsetCommitResponseTopic().setTopicId(t.topicId());
                    t.partitions().forEach(p -> unknown.partitions()
                            .add(new TxnOffsetCommitResponsePartition()
                                    .setPartitionIndex(p.partitionIndex())
                                    .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())));
                    unknownIds.add(unknown);
                    continue;
                }
                name = topic.name();
            }
            for (TxnOffsetCommitRequestPartition p : t.partitions()) {
                TopicPartition tp = new TopicPartition(name, p.partitionIndex());
                if (OffsetHandlers.exists(snapshot, tp)) {
                    partitions.add(new OffsetApi.CommitPartition(
                            tp,
                            p.committedOffset(),
                            version >= FIRST_LEADER_EPOCH_VERSION ? p.committedLeaderEpoch() : -1,
                            p.committedMetadata()));
                    errors.put(tp, null);
                } else {
                    errors.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
        }
        if (partitions.isEmpty()) {
            return CompletableFuture.completedFuture(response(errors, byId ? snapshot : null, unknownIds));
        }
        boolean member = version >= FIRST_MEMBER_VERSION;
        OffsetApi.TxnCommitRequest commit = new OffsetApi.TxnCommitRequest(
                data.groupId(),
                data.producerId(),
                data.producerEpoch(),
                member ? data.generationIdOrMemberEpoch() : -1,
                member ? data.memberId() : "",
                member ? data.groupInstanceId() : null,
                partitions,
                byId);
        TopicPartition offsetsPartition =
                new TopicPartition(GroupCoordinatorRuntime.TOPIC, runtime.partitionFor(data.groupId()));
        CompletableFuture<Errors> inTransaction = version >= FIRST_IMPLICIT_ADD_VERSION
                ? transactions.addToTransaction(
                        data.transactionalId(), data.producerId(), data.producerEpoch(), offsetsPartition)
                : transactions.verifyInTransaction(
                        data.transactionalId(), data.producerId(), data.producerEpoch(), offsetsPartition);
        CompletableFuture<List<OffsetApi.PartitionResult>> result = inTransaction.thenCompose(error -> {
            if (error != Errors.NONE) {
                return CompletableFuture.completedFuture(partitions.stream()
                        .map(p -> new OffsetApi.PartitionResult(p.partition(), error))
                        .toList());
            }
            return runtime.run(data.groupId(), shard -> shard.commitTransactionalOffsets(commit));
        });
        return result.handle((results, e) -> {
            OffsetHandlers.recordResults(errors, results, e);
            return response(errors, byId ? snapshot : null, unknownIds);
        });
    }

    /** @param ids the snapshot to name topics by id from (v6+), else null: topics by name */
    private static TxnOffsetCommitResponseData response(
            Map<TopicPartition, Errors> errors, MetadataSnapshot ids, List<TxnOffsetCommitResponseTopic> unknownIds) {
        TxnOffsetCommitResponseData response = new TxnOffsetCommitResponseData();
        Map<String, TxnOffsetCommitResponseTopic> topics = new LinkedHashMap<>();
        errors.forEach((tp, error) -> topics.computeIfAbsent(tp.topic(), n -> {
                    TxnOffsetCommitResponseTopic topic = ids == null
                            ? new TxnOffsetCommitResponseTopic().setName(n)
                            : new TxnOffsetCommitResponseTopic()
                                    .setTopicId(ids.topic(n)
                                            .map(MetadataSnapshot.TopicInfo::id)
                                            .orElseThrow());
                    response.topics().add(topic);
                    return topic;
                })
                .partitions()
                .add(new TxnOffsetCommitResponsePartition()
                        .setPartitionIndex(tp.partition())
                        .setErrorCode(error.code())));
        response.topics().addAll(unknownIds);
        return response;
    }
}

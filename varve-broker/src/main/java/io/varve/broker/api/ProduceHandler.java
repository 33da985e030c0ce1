package io.varve.broker.api;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.protocol.WireRecords;
import io.varve.broker.replica.Partition;
import io.varve.broker.replica.ReplicaManager;
import io.varve.http.metrics.TopicTraffic;
import io.varve.storage.AppendOrigin;
import io.varve.storage.AppendResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produce: validates and appends each partition's batches as sent (v2 only, compression untouched). acks=1 is
 * answered after the leader's append, acks=0 not at all; acks=all first needs an ISR of at least
 * {@code min.insync.replicas} (NOT_ENOUGH_REPLICAS) and is answered once the high watermark passes the records, the
 * request times out, or leadership moves (the produce purgatory).
 */
public final class ProduceHandler implements ApiHandler {
    private static final Logger log = LoggerFactory.getLogger(ProduceHandler.class);
    /** Topic ids identify topics from this version on (KIP-516). */
    private static final short FIRST_TOPIC_ID_VERSION = 13;
    /** KIP-951: the current leader and its endpoint beside NOT_LEADER_OR_FOLLOWER from this version on. */
    private static final short FIRST_CURRENT_LEADER_VERSION = 10;

    private final MetadataCache cache;
    private final ReplicaManager replicaManager;
    private final TopicTraffic traffic;
    /** Broker-side schema validation; null when the schema registry is off. */
    private final ProduceRecordCheck recordCheck;
    /** KIP-890's questions to the transaction coordinator; null until the coordinators are up. */
    private volatile ProduceTxnVerifier txnVerifier;
    /** Whether writes of transaction version 1 clients (Produce before v12) are verified too (part 1). */
    private volatile boolean verifyVersion1Writes;

    public ProduceHandler(MetadataCache cache, ReplicaManager replicaManager) {
        this(cache, replicaManager, new TopicTraffic(), null);
    }

    public ProduceHandler(
            MetadataCache cache, ReplicaManager replicaManager, TopicTraffic traffic, ProduceRecordCheck recordCheck) {
        this.cache = cache;
        this.replicaManager = replicaManager;
        this.traffic = traffic;
        this.recordCheck = recordCheck;
    }

    /**
     * From now on a transactional write that starts its producer's transaction in a partition goes to the transaction
     * coordinator first (see {@link ProduceVerification}): always from Produce v12 (transactions v2: the leader adds
     * the partition, the client does not), and before v12 when {@code verifyVersion1Writes} ({@code
     * transaction.partition.verification.enable}).
     */
    public ProduceHandler verifyTransactionsWith(ProduceTxnVerifier verifier, boolean verifyVersion1Writes) {
        this.verifyVersion1Writes = verifyVersion1Writes;
        this.txnVerifier = verifier;
        return this;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        ProduceRequestData data = request.body();
        boolean byId = request.apiVersion() >= FIRST_TOPIC_ID_VERSION;
        MetadataSnapshot snapshot = cache.snapshot();
        short acks = data.acks();
        ProduceResponseData response = new ProduceResponseData();
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (TopicProduceData topicData : data.topicData()) {
            TopicInfo topic = byId
                    ? snapshot.topicsById().get(topicData.topicId())
                    : snapshot.topicsByName().get(topicData.name());
            TopicProduceResponse topicResponse = new TopicProduceResponse()
                    .setName(byId ? "" : topicData.name())
                    .setTopicId(topicData.topicId());
            for (PartitionProduceData partitionData : topicData.partitionData()) {
                PartitionProduceResponse p = new PartitionProduceResponse()
                        .setIndex(partitionData.index())
                        .setBaseOffset(-1)
                        .setLogAppendTimeMs(-1)
                        .setLogStartOffset(-1);
                if (acks != 0 && acks != 1 && acks != -1) {
                    p.setErrorCode(Errors.INVALID_REQUIRED_ACKS.code());
                } else if (topic == null) {
                    p.setErrorCode((byId ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION).code());
                } else if (topic.isInternal()) {
                    // Only the coordinators write their internal topics, as in Kafka.
                    p.setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code())
                            .setErrorMessage("Cannot append to internal topic " + topic.name());
                } else {
                    CompletableFuture<Void> wait = verifyThenAppend(
                            request.apiVersion(),
                            data.transactionalId(),
                            snapshot,
                            topic,
                            partitionData,
                            p,
                            acks,
                            data.timeoutMs());
                    if (wait != null) {
                        waits.add(wait);
                    }
                }
                topicResponse.partitionResponses().add(p);
            }
            response.responses().add(topicResponse);
        }
        if (waits.isEmpty()) {
            return CompletableFuture.completedFuture(acks == 0 ? null : withLeaders(request, snapshot, response));
        }
        return CompletableFuture.allOf(waits.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> acks == 0 ? null : withLeaders(request, snapshot, response));
    }

    /** Names the current leader of every partition answered NOT_LEADER_OR_FOLLOWER, and its endpoint (KIP-951). */
    private static ProduceResponseData withLeaders(
            RequestContext request, MetadataSnapshot snapshot, ProduceResponseData response) {
        if (request.apiVersion() < FIRST_CURRENT_LEADER_VERSION) {
            return response;
        }
        java.util.Map<Integer, CurrentLeaders.NodeAddress> leaders = new java.util.TreeMap<>();
        for (TopicProduceResponse topic : response.responses()) {
            String name = topic.name().isEmpty()
                    ? snapshot.topic(topic.topicId()).map(TopicInfo::name).orElse(null)
                    : topic.name();
            if (name == null) {
                continue;
            }
            for (PartitionProduceResponse p : topic.partitionResponses()) {
                if (p.errorCode() != Errors.NOT_LEADER_OR_FOLLOWER.code()) {
                    continue;
                }
                int[] leader = CurrentLeaders.leaderAndEpoch(snapshot, new TopicPartition(name, p.index()));
                if (leader != null) {
                    p.currentLeader().setLeaderId(leader[0]).setLeaderEpoch(leader[1]);
                    CurrentLeaders.address(snapshot, leader[0], request.listenerName())
                            .ifPresent(a -> leaders.put(leader[0], a));
                }
            }
        }
        leaders.forEach((id, a) -> response.nodeEndpoints()
                .add(new ProduceResponseData.NodeEndpoint()
                        .setNodeId(id)
                        .setHost(a.host())
                        .setPort(a.port())
                        .setRack(a.rack())));
        return response;
    }

    /**
     * {@link #append} after the transaction verification of KIP-890 when the write is transactional and verification
     * is on; what completes once the partition is answered (never failing), or null when it is already.
     */
    private CompletableFuture<Void> verifyThenAppend(
            short version,
            String transactionalId,
            MetadataSnapshot snapshot,
            TopicInfo topic,
            PartitionProduceData data,
            PartitionProduceResponse out,
            short acks,
            int timeoutMs) {
        ProduceTxnVerifier verifier = txnVerifier;
        ByteBuffer buffer = WireRecords.bytesOrNull(data.records());
        boolean asks = version >= ProduceVerification.FIRST_IMPLICIT_ADD_VERSION || verifyVersion1Writes;
        java.util.Optional<ProduceVerification.Writer> writer = verifier == null || buffer == null || !asks
                ? java.util.Optional.empty()
                : ProduceVerification.transactionalWriter(transactionalId, buffer);
        if (writer.isEmpty()) {
            return append(snapshot, topic, data, out, acks, timeoutMs, null, version);
        }
        TopicPartition tp = new TopicPartition(topic.name(), data.index());
        Partition partition;
        try {
            partition = replicaManager.leaderPartition(snapshot, tp);
        } catch (ApiException e) {
            out.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            return null;
        }
        return ProduceVerification.verify(verifier, transactionalId, writer.get(), partition, tp, version)
                .thenCompose(result -> {
                    if (result.error() != Errors.NONE) {
                        log.debug("Transactional produce to {} refused by verification: {}", tp, result.error());
                        synchronized (out) {
                            out.setErrorCode(result.error().code())
                                    .setErrorMessage("The transaction coordinator did not confirm that the partition"
                                            + " is in the producer's ongoing transaction ("
                                            + result.error().name()
                                            + ").");
                        }
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    CompletableFuture<Void> wait;
                    synchronized (out) {
                        wait = append(snapshot, topic, data, out, acks, timeoutMs, result.guard(), version);
                    }
                    return wait == null ? CompletableFuture.<Void>completedFuture(null) : wait;
                });
    }

    /** Appends one partition's batches; with acks=all, what completes once they are committed (never failing). */
    private CompletableFuture<Void> append(
            MetadataSnapshot snapshot,
            TopicInfo topic,
            PartitionProduceData data,
            PartitionProduceResponse out,
            short acks,
            int timeoutMs,
            io.varve.storage.producer.VerificationGuard guard,
            short version) {
        TopicPartition tp = new TopicPartition(topic.name(), data.index());
        try {
            ByteBuffer buffer = WireRecords.bytesOrNull(data.records());
            if (buffer == null) {
                out.setErrorCode(Errors.INVALID_RECORD.code())
                        .setErrorMessage("The produce request carries no record batch.");
                return null;
            }
            Partition partition = replicaManager.leaderPartition(snapshot, tp);
            if (recordCheck != null && recordCheck.appliesTo(topic) && refused(topic, buffer, out)) {
                return null;
            }
            int bytes = buffer.remaining();
            Partition.LeaderAppend append;
            try {
                append = replicaManager.append(partition, buffer, AppendOrigin.CLIENT, acks, guard);
            } catch (org.apache.kafka.common.errors.InvalidTxnStateException e) {
                if (guard == null) {
                    throw e;
                }
                // the transaction ended (a marker) between the coordinator's answer and this append
                out.setErrorCode(ProduceVerification.notInTransaction(version).code())
                        .setErrorMessage(e.getMessage());
                return null;
            }
            AppendResult result = append.result();
            if (!result.duplicate()) {
                traffic.topic(tp.topic()).produced(bytes, result.lastOffset() - result.baseOffset() + 1);
            }
            out.setErrorCode(Errors.NONE.code())
                    .setBaseOffset(result.baseOffset())
                    .setLogAppendTimeMs(result.logAppendTimeMs())
                    .setLogStartOffset(result.logStartOffset());
            if (acks != -1) {
                return null;
            }
            return replicaManager
                    .producePurgatory()
                    .await(partition, result.lastOffset() + 1, append.leaderEpoch(), true, timeoutMs)
                    .handle((v, failure) -> {
                        if (failure != null) {
                            Throwable cause = failure instanceof java.util.concurrent.CompletionException
                                    ? failure.getCause()
                                    : failure;
                            Errors error = Errors.forException(cause);
                            log.debug("Produce to {} was not committed: {}", tp, error);
                            synchronized (out) {
                                out.setErrorCode(error.code()).setErrorMessage(cause.getMessage());
                            }
                        }
                        return null;
                    });
        } catch (ApiException e) {
            Errors error = Errors.forException(e);
            log.debug("Produce to {} failed: {}", tp, error);
            traffic.topic(tp.topic()).produceFailed();
            out.setErrorCode(error.code()).setErrorMessage(e.getMessage());
            return null;
        }
    }

    /** Runs the record check; when it refuses records, answers INVALID_RECORD with one error per record. */
    private boolean refused(TopicInfo topic, ByteBuffer buffer, PartitionProduceResponse out) {
        long startNanos = System.nanoTime();
        java.util.List<ProduceRecordCheck.RecordError> errors = recordCheck.check(topic, buffer);
        traffic.topic(topic.name()).recordsChecked(System.nanoTime() - startNanos);
        if (errors.isEmpty()) {
            return false;
        }
        out.setErrorCode(Errors.INVALID_RECORD.code())
                .setErrorMessage(errors.get(0).message());
        for (ProduceRecordCheck.RecordError e : errors) {
            out.recordErrors()
                    .add(new ProduceResponseData.BatchIndexAndErrorMessage()
                            .setBatchIndex(e.index())
                            .setBatchIndexErrorMessage(e.message()));
        }
        return true;
    }
}

package io.varve.broker.api;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.protocol.WireRecords;
import io.varve.broker.replica.ReplicaManager;
import io.varve.http.metrics.TopicTraffic;
import io.varve.storage.AppendResult;
import io.varve.storage.PartitionLog;
import java.nio.ByteBuffer;
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
 * Produce: validates and appends each partition's batches as sent (v2 only, compression untouched).
 * On a single node every acks mode is satisfied when the append returns; acks=0 gets no response.
 */
public final class ProduceHandler implements ApiHandler {
    private static final Logger log = LoggerFactory.getLogger(ProduceHandler.class);
    /** Topic ids identify topics from this version on (KIP-516). */
    private static final short FIRST_TOPIC_ID_VERSION = 13;

    private final MetadataCache cache;
    private final ReplicaManager replicaManager;
    private final TopicTraffic traffic;
    /** Broker-side schema validation; null when the schema registry is off. */
    private final ProduceRecordCheck recordCheck;

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

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        ProduceRequestData data = request.body();
        boolean byId = request.apiVersion() >= FIRST_TOPIC_ID_VERSION;
        MetadataSnapshot snapshot = cache.snapshot();
        short acks = data.acks();
        ProduceResponseData response = new ProduceResponseData();
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
                    append(snapshot, topic, partitionData, p);
                }
                topicResponse.partitionResponses().add(p);
            }
            response.responses().add(topicResponse);
        }
        return CompletableFuture.completedFuture(acks == 0 ? null : response);
    }

    private void append(
            MetadataSnapshot snapshot, TopicInfo topic, PartitionProduceData data, PartitionProduceResponse out) {
        TopicPartition tp = new TopicPartition(topic.name(), data.index());
        try {
            ByteBuffer buffer = WireRecords.bytesOrNull(data.records());
            if (buffer == null) {
                out.setErrorCode(Errors.INVALID_RECORD.code())
                        .setErrorMessage("The produce request carries no record batch.");
                return;
            }
            PartitionLog partitionLog = replicaManager.leaderLog(snapshot, tp);
            if (recordCheck != null && recordCheck.appliesTo(topic) && refused(topic, buffer, out)) {
                return;
            }
            int leaderEpoch = snapshot.topicsByName()
                    .get(tp.topic())
                    .partitions()
                    .get(tp.partition())
                    .leaderEpoch();
            int bytes = buffer.remaining();
            AppendResult result = replicaManager.appendAsLeader(partitionLog, buffer, leaderEpoch);
            if (!result.duplicate()) {
                traffic.topic(tp.topic()).produced(bytes, result.lastOffset() - result.baseOffset() + 1);
            }
            out.setErrorCode(Errors.NONE.code())
                    .setBaseOffset(result.baseOffset())
                    .setLogAppendTimeMs(result.logAppendTimeMs())
                    .setLogStartOffset(result.logStartOffset());
        } catch (ApiException e) {
            Errors error = Errors.forException(e);
            log.debug("Produce to {} failed: {}", tp, error);
            traffic.topic(tp.topic()).produceFailed();
            out.setErrorCode(error.code()).setErrorMessage(e.getMessage());
        }
    }

    /** Runs the record check; when it refuses records, answers INVALID_RECORD with one error per record. */
    private boolean refused(TopicInfo topic, ByteBuffer buffer, PartitionProduceResponse out) {
        java.util.List<ProduceRecordCheck.RecordError> errors = recordCheck.check(topic, buffer);
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

package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.replica.ReplicaManager;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteRecords: moves each partition's log start offset up to the requested offset (-1 = the high
 * watermark) on the leader's log, which refuses offsets beyond the high watermark and topics whose
 * cleanup policy lacks {@code delete}. The answer waits until every live replica's log start reached the new offset
 * (the low watermark, reported by followers in their fetches) or the request's {@code timeout_ms} passes
 * (REQUEST_TIMED_OUT, with the low watermark reached so far); {@code low_watermark} is that minimum, as in Kafka.
 */
public final class DeleteRecordsHandler implements ApiHandler {
    private final MetadataCache cache;
    private final ReplicaManager replicaManager;

    public DeleteRecordsHandler(MetadataCache cache, ReplicaManager replicaManager) {
        this.cache = cache;
        this.replicaManager = replicaManager;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        DeleteRecordsRequestData data = request.body();
        MetadataSnapshot snapshot = cache.snapshot();
        DeleteRecordsResponseData response = new DeleteRecordsResponseData();
        Map<TopicPartition, Long> targets = new HashMap<>();
        Map<TopicPartition, DeleteRecordsPartitionResult> results = new HashMap<>();
        for (DeleteRecordsTopic topic : data.topics()) {
            DeleteRecordsTopicResult topicResult = new DeleteRecordsTopicResult().setName(topic.name());
            for (DeleteRecordsPartition partition : topic.partitions()) {
                TopicPartition tp = new TopicPartition(topic.name(), partition.partitionIndex());
                DeleteRecordsPartitionResult result = new DeleteRecordsPartitionResult()
                        .setPartitionIndex(partition.partitionIndex())
                        .setLowWatermark(-1);
                try {
                    long logStartOffset =
                            replicaManager.leaderLog(snapshot, tp).deleteRecordsBefore(partition.offset());
                    result.setLowWatermark(logStartOffset).setErrorCode(Errors.NONE.code());
                    targets.put(tp, logStartOffset);
                    results.put(tp, result);
                } catch (ApiException e) {
                    result.setErrorCode(Errors.forException(e).code());
                }
                topicResult.partitions().add(result);
            }
            response.topics().add(topicResult);
        }
        if (targets.isEmpty()) {
            return CompletableFuture.completedFuture(response);
        }
        // the answer waits for the followers to delete their prefix too (the low watermark), as Kafka's does
        return replicaManager.awaitLowWatermarks(targets, data.timeoutMs()).thenApply(outcomes -> {
            outcomes.forEach((tp, outcome) -> {
                DeleteRecordsPartitionResult result = results.get(tp);
                result.setLowWatermark(outcome.lowWatermark());
                result.setErrorCode(
                        outcome.error() == null
                                ? Errors.NONE.code()
                                : Errors.forException(outcome.error()).code());
            });
            return response;
        });
    }
}

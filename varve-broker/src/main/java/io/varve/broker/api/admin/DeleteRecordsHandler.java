package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.replica.ReplicaManager;
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
 * cleanup policy lacks {@code delete}. On a single node the leader is every replica, so the answer
 * does not wait for followers' low watermarks.
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
                } catch (ApiException e) {
                    result.setErrorCode(Errors.forException(e).code());
                }
                topicResult.partitions().add(result);
            }
            response.topics().add(topicResult);
        }
        return CompletableFuture.completedFuture(response);
    }
}

package io.varve.broker.txn;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * WriteTxnMarkers (v1-2; v2 names the transaction version, which changes nothing here: a transactions v2 marker
 * already carries the bumped epoch), sent by the transaction coordinators of other brokers: writes each requested COMMIT/ABORT
 * marker to the partitions this broker leads, through the same {@link TxnMarkerWriter} the local coordinator uses,
 * and answers once every marker is committed or has failed. Per-partition errors as Kafka (UNKNOWN_TOPIC_OR_PARTITION,
 * NOT_LEADER_OR_FOLLOWER, INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED...).
 */
public final class WriteTxnMarkersHandler implements ApiHandler {
    private final TxnMarkerWriter writer;

    public WriteTxnMarkersHandler(TxnMarkerWriter writer) {
        this.writer = writer;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        WriteTxnMarkersRequestData data = request.body();
        List<CompletableFuture<?>> writes = new ArrayList<>();
        List<WriteTxnMarkersResponseData.WritableTxnMarkerResult> markers = new ArrayList<>();
        for (WriteTxnMarkersRequestData.WritableTxnMarker m : data.markers()) {
            List<WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult> topics = new ArrayList<>();
            for (WriteTxnMarkersRequestData.WritableTxnMarkerTopic t : m.topics()) {
                List<WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult> partitions = new ArrayList<>();
                for (int p : t.partitionIndexes()) {
                    var result =
                            new WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult().setPartitionIndex(p);
                    partitions.add(result);
                    writes.add(write(new TopicPartition(t.name(), p), m)
                            .thenAccept(error -> result.setErrorCode(error.code())));
                }
                topics.add(new WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult()
                        .setName(t.name())
                        .setPartitions(partitions));
            }
            markers.add(new WriteTxnMarkersResponseData.WritableTxnMarkerResult()
                    .setProducerId(m.producerId())
                    .setTopics(topics));
        }
        return CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> new WriteTxnMarkersResponseData().setMarkers(markers));
    }

    private CompletableFuture<Errors> write(TopicPartition tp, WriteTxnMarkersRequestData.WritableTxnMarker m) {
        try {
            return writer.write(tp, m.producerId(), m.producerEpoch(), m.coordinatorEpoch(), m.transactionResult())
                    .handle((outcome, e) -> e != null
                            ? Errors.forException(TxnMarkerSender.unwrap(e))
                            : outcome == TxnMarkerWriter.Outcome.PARTITION_GONE
                                    ? Errors.UNKNOWN_TOPIC_OR_PARTITION
                                    : Errors.NONE);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Errors.forException(e));
        }
    }
}

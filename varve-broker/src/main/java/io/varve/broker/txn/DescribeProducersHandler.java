package io.varve.broker.txn;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.replica.ReplicaManager;
import io.varve.storage.producer.ProducerStateEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.ProducerState;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeProducers (v0): the producer state of each requested partition this broker leads, read from its log:
 * producer id and epoch, last sequence, last timestamp, the coordinator epoch of its last marker and the first
 * offset of its ongoing transaction (-1 when none). UNKNOWN_TOPIC_OR_PARTITION / NOT_LEADER_OR_FOLLOWER otherwise.
 */
public final class DescribeProducersHandler implements ApiHandler {
    private final MetadataCache cache;
    private final ReplicaManager replicaManager;

    public DescribeProducersHandler(MetadataCache cache, ReplicaManager replicaManager) {
        this.cache = cache;
        this.replicaManager = replicaManager;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        DescribeProducersRequestData data = request.body();
        MetadataSnapshot snapshot = cache.snapshot();
        DescribeProducersResponseData response = new DescribeProducersResponseData();
        for (DescribeProducersRequestData.TopicRequest t : data.topics()) {
            TopicResponse topic = new TopicResponse().setName(t.name());
            for (int partition : t.partitionIndexes()) {
                topic.partitions().add(describe(snapshot, new TopicPartition(t.name(), partition)));
            }
            response.topics().add(topic);
        }
        return CompletableFuture.completedFuture(response);
    }

    private PartitionResponse describe(MetadataSnapshot snapshot, TopicPartition tp) {
        PartitionResponse out = new PartitionResponse().setPartitionIndex(tp.partition());
        List<ProducerStateEntry> entries;
        try {
            entries = new ArrayList<>(
                    replicaManager.leaderLog(snapshot, tp).producerStates().values());
        } catch (ApiException e) {
            Errors error = Errors.forException(e);
            return out.setErrorCode(error.code()).setErrorMessage(e.getMessage());
        }
        entries.sort(Comparator.comparingLong(ProducerStateEntry::producerId));
        for (ProducerStateEntry e : entries) {
            out.activeProducers()
                    .add(new ProducerState()
                            .setProducerId(e.producerId())
                            .setProducerEpoch(e.producerEpoch())
                            .setLastSequence(e.lastSequence().orElse(-1))
                            .setLastTimestamp(e.lastTimestampMs() == Long.MIN_VALUE ? -1 : e.lastTimestampMs())
                            .setCoordinatorEpoch(e.coordinatorEpoch())
                            .setCurrentTxnStartOffset(e.currentTxnFirstOffset()));
        }
        return out.setErrorCode(Errors.NONE.code());
    }
}

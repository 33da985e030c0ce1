package io.varve.broker.api;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.replica.ReplicaManager;
import io.varve.storage.PartitionLog;
import io.varve.storage.TimestampAndOffset;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListOffsets: earliest, latest, max-timestamp and by-timestamp lookups on the leader's log. As in Kafka, LATEST is
 * the high watermark, or the last stable offset for isolation_level READ_COMMITTED (v2+), and a lookup by time or
 * max timestamp finds nothing at or past that offset.
 */
public final class ListOffsetsHandler implements ApiHandler {
    static final long LATEST = -1L;
    static final long EARLIEST = -2L;
    static final long MAX_TIMESTAMP = -3L;
    static final long EARLIEST_LOCAL = -4L;
    static final long LATEST_TIERED = -5L;
    /** Responses carry the leader epoch from this version on. */
    private static final short FIRST_LEADER_EPOCH_VERSION = 4;
    /** Requests carry isolation_level from this version on. */
    private static final short FIRST_ISOLATION_LEVEL_VERSION = 2;

    private final MetadataCache cache;
    private final ReplicaManager replicaManager;

    public ListOffsetsHandler(MetadataCache cache, ReplicaManager replicaManager) {
        this.cache = cache;
        this.replicaManager = replicaManager;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        ListOffsetsRequestData data = request.body();
        MetadataSnapshot snapshot = cache.snapshot();
        ListOffsetsResponseData response = new ListOffsetsResponseData();
        boolean readCommitted = request.apiVersion() >= FIRST_ISOLATION_LEVEL_VERSION
                && data.isolationLevel() == IsolationLevel.READ_COMMITTED.id();
        for (ListOffsetsTopic topic : data.topics()) {
            ListOffsetsTopicResponse topicResponse = new ListOffsetsTopicResponse().setName(topic.name());
            for (ListOffsetsPartition p : topic.partitions()) {
                ListOffsetsPartitionResponse answer = lookup(snapshot, new TopicPartition(topic.name(), p.partitionIndex()), p,
                        readCommitted);
                if (request.apiVersion() < FIRST_LEADER_EPOCH_VERSION) {
                    answer.setLeaderEpoch(-1);
                }
                topicResponse.partitions().add(answer);
            }
            response.topics().add(topicResponse);
        }
        return CompletableFuture.completedFuture(response);
    }

    private ListOffsetsPartitionResponse lookup(MetadataSnapshot snapshot, TopicPartition tp, ListOffsetsPartition p,
                                                boolean readCommitted) {
        ListOffsetsPartitionResponse out = new ListOffsetsPartitionResponse()
                .setPartitionIndex(p.partitionIndex()).setTimestamp(-1).setOffset(-1).setLeaderEpoch(-1);
        try {
            PartitionLog log = replicaManager.leaderLog(snapshot, tp);
            int leaderEpoch = log.latestLeaderEpoch();
            long ts = p.timestamp();
            long readableEnd = readCommitted ? log.lastStableOffset() : log.highWatermark();
            if (ts == LATEST) {
                out.setOffset(readableEnd).setLeaderEpoch(leaderEpoch);
            } else if (ts == EARLIEST || ts == EARLIEST_LOCAL) {
                out.setOffset(log.logStartOffset()).setLeaderEpoch(leaderEpoch);
            } else if (ts == LATEST_TIERED) {
                // No tiered storage yet: nothing is tiered, as Kafka answers for a topic without remote storage.
                out.setOffset(-1);
            } else if (ts == MAX_TIMESTAMP || ts >= 0) {
                Optional<TimestampAndOffset> found = ts == MAX_TIMESTAMP
                        ? log.maxTimestampAndOffset().map(batch -> RecordLookup.maxTimestampRecord(log, batch))
                        : log.offsetForTimestamp(ts).map(batch -> RecordLookup.firstRecordAtOrAfter(log, batch, ts));
                found.filter(f -> f.offset() < readableEnd).ifPresent(f -> out.setTimestamp(f.timestamp()).setOffset(f.offset()).setLeaderEpoch(f.leaderEpoch()));
            } else {
                out.setErrorCode(Errors.INVALID_REQUEST.code());
                return out;
            }
            out.setErrorCode(Errors.NONE.code());
        } catch (ApiException e) {
            out.setErrorCode(Errors.forException(e).code());
        }
        return out;
    }
}

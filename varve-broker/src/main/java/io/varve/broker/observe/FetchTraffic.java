package io.varve.broker.observe;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.protocol.RequestContext;
import io.varve.http.metrics.TopicTraffic;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.BaseRecords;

/**
 * Counts the bytes a fetch response carries per topic (Kafka's BytesOutPerSec), once per response that is sent (a
 * long poll reads several times and answers once). One pass over the response's partitions, nothing per record.
 */
public final class FetchTraffic {
    private final MetadataCache metadata;
    private final TopicTraffic traffic;

    public FetchTraffic(MetadataCache metadata, TopicTraffic traffic) {
        this.metadata = metadata;
        this.traffic = traffic;
    }

    /**
     * Records {@code response} and returns it, to sit in a {@code thenApply}. A follower's fetch is replication, not
     * consumption (Kafka counts it apart, as ReplicationBytesOutPerSec): it is not counted.
     */
    public ApiMessage sent(RequestContext request, ApiMessage response) {
        if (!(response instanceof FetchResponseData fetch) || fromFollower(request.body())) {
            return response;
        }
        MetadataSnapshot snapshot = null;
        for (FetchableTopicResponse topic : fetch.responses()) {
            String name = topic.topic();
            if (name == null || name.isEmpty()) {
                snapshot = snapshot == null ? metadata.snapshot() : snapshot;
                TopicInfo info = snapshot.topicsById().get(topic.topicId());
                if (info == null) {
                    continue;
                }
                name = info.name();
            }
            TopicTraffic.Topic counters = null;
            for (PartitionData p : topic.partitions()) {
                BaseRecords records = p.records();
                int size = records == null ? 0 : records.sizeInBytes();
                if (size > 0) {
                    counters = counters == null ? traffic.topic(name) : counters;
                    counters.fetched(size, false);
                }
            }
        }
        return response;
    }

    private static boolean fromFollower(FetchRequestData request) {
        return request.replicaId() >= 0
                || (request.replicaState() != null && request.replicaState().replicaId() >= 0);
    }
}

package io.varve.broker.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.security.authorizer.AclOperation;
import io.varve.security.authorizer.ResourceType;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The topic-describing APIs a consumer or an admin tool calls besides Metadata: OffsetsForLeaderEpoch (a consumer
 * validating its position after a leader change; a follower needs CLUSTER_ACTION, as Kafka's brokers check) and
 * DescribeTopicPartitions ({@code kafka-topics --describe} in Kafka 4.x). As in Kafka, a principal with
 * CLUSTER_ACTION may ask about every topic; anyone else gets TOPIC_AUTHORIZATION_FAILED for a named topic it may not
 * DESCRIBE, and a listing of all topics leaves such topics out.
 */
final class DescribeAuthorization {
    private final BrokerAuthorizer authorizer;

    DescribeAuthorization(BrokerAuthorizer authorizer) {
        this.authorizer = authorizer;
    }

    private boolean describe(RequestContext r, String topic) {
        return topic != null && authorizer.authorize(r, AclOperation.DESCRIBE, ResourceType.TOPIC, topic);
    }

    CompletableFuture<ApiMessage> offsetsForLeaderEpoch(RequestContext r, ApiHandler h) {
        OffsetForLeaderEpochRequestData data = r.body();
        if (authorizer.authorizeCluster(r, AclOperation.CLUSTER_ACTION)) {
            return h.handle(r);
        }
        if (data.replicaId() >= 0) {
            return AuthorizationHook.refuse(r, Errors.CLUSTER_AUTHORIZATION_FAILED, "replica OffsetsForLeaderEpoch");
        }
        return TopicAuthorization.partial(r, h, data.topics(), t -> describe(r, t.topic()), (response, refused) -> {
            OffsetForLeaderEpochResponseData out = (OffsetForLeaderEpochResponseData) response;
            for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t : refused) {
                OffsetForLeaderTopicResult entry = new OffsetForLeaderTopicResult().setTopic(t.topic());
                t.partitions().forEach(p -> entry.partitions()
                        .add(new EpochEndOffset()
                                .setPartition(p.partition())
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                .setLeaderEpoch(-1)
                                .setEndOffset(-1)));
                out.topics().add(entry);
            }
        });
    }

    CompletableFuture<ApiMessage> describeTopicPartitions(RequestContext r, ApiHandler h) {
        if (authorizer.authorizeCluster(r, AclOperation.CLUSTER_ACTION)) {
            return h.handle(r);
        }
        DescribeTopicPartitionsRequestData data = r.body();
        Set<String> named = new HashSet<>();
        data.topics().forEach(t -> named.add(t.name()));
        return h.handle(r).thenApply(response -> {
            DescribeTopicPartitionsResponseData out = (DescribeTopicPartitionsResponseData) response;
            Set<String> refusedNamed = new HashSet<>();
            for (Iterator<DescribeTopicPartitionsResponseTopic> it =
                            out.topics().iterator();
                    it.hasNext(); ) {
                DescribeTopicPartitionsResponseTopic t = it.next();
                if (!describe(r, t.name())) {
                    it.remove();
                    if (named.contains(t.name())) {
                        refusedNamed.add(t.name());
                    }
                }
            }
            for (String name : refusedNamed) {
                out.topics()
                        .add(new DescribeTopicPartitionsResponseTopic()
                                .setName(name)
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
            }
            return response;
        });
    }
}

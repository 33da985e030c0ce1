package io.varve.broker.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.protocol.WireRecords;
import io.varve.security.authorizer.AclOperation;
import io.varve.security.authorizer.ResourceType;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Topic READ on ShareFetch and ShareAcknowledge, after the group's READ, as Kafka checks them: a topic (named by id,
 * resolved through the metadata image) the principal may not read is taken out of the request, so it joins no share
 * session and nothing of it is acquired or acknowledged, and comes back with TOPIC_AUTHORIZATION_FAILED on each of its
 * partitions (on the acknowledgement too when the request acknowledged something there). An id the image does not
 * know passes on, for the handler's UNKNOWN_TOPIC_ID.
 */
final class ShareTopicAuthorization {
    private static final short REFUSED = Errors.TOPIC_AUTHORIZATION_FAILED.code();

    private final BrokerAuthorizer authorizer;

    ShareTopicAuthorization(BrokerAuthorizer authorizer) {
        this.authorizer = authorizer;
    }

    private boolean mayRead(RequestContext r, org.apache.kafka.common.Uuid topicId) {
        String name = authorizer.topicName(topicId);
        return name == null || authorizer.authorize(r, AclOperation.READ, ResourceType.TOPIC, name);
    }

    CompletableFuture<ApiMessage> fetch(RequestContext r, ApiHandler h) {
        ShareFetchRequestData data = r.body();
        return TopicAuthorization.partial(r, h, data.topics(), t -> mayRead(r, t.topicId()), (response, refused) -> {
            ShareFetchResponseData out = (ShareFetchResponseData) response;
            if (out.errorCode() != Errors.NONE.code()) {
                return; // a request-level error carries no topics
            }
            for (ShareFetchRequestData.FetchTopic t : refused) {
                var topic = new ShareFetchResponseData.ShareFetchableTopicResponse().setTopicId(t.topicId());
                for (ShareFetchRequestData.FetchPartition p : t.partitions()) {
                    var partition = new ShareFetchResponseData.PartitionData()
                            .setPartitionIndex(p.partitionIndex())
                            .setErrorCode(REFUSED)
                            .setErrorMessage("Not authorized to read the topic.")
                            .setAcknowledgeErrorCode(
                                    p.acknowledgementBatches().isEmpty() ? Errors.NONE.code() : REFUSED)
                            .setRecords(WireRecords.empty());
                    partition.currentLeader().setLeaderId(-1).setLeaderEpoch(-1);
                    topic.partitions().add(partition);
                }
                out.responses().add(topic);
            }
        });
    }

    CompletableFuture<ApiMessage> acknowledge(RequestContext r, ApiHandler h) {
        ShareAcknowledgeRequestData data = r.body();
        return TopicAuthorization.partial(r, h, data.topics(), t -> mayRead(r, t.topicId()), (response, refused) -> {
            ShareAcknowledgeResponseData out = (ShareAcknowledgeResponseData) response;
            if (out.errorCode() != Errors.NONE.code()) {
                return;
            }
            for (ShareAcknowledgeRequestData.AcknowledgeTopic t : refused) {
                var topic = new ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse().setTopicId(t.topicId());
                for (ShareAcknowledgeRequestData.AcknowledgePartition p : t.partitions()) {
                    var partition = new ShareAcknowledgeResponseData.PartitionData()
                            .setPartitionIndex(p.partitionIndex())
                            .setErrorCode(REFUSED)
                            .setErrorMessage("Not authorized to read the topic.");
                    partition.currentLeader().setLeaderId(-1).setLeaderEpoch(-1);
                    topic.partitions().add(partition);
                }
                out.responses().add(topic);
            }
        });
    }
}

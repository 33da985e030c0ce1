package io.varve.broker.api;

import io.varve.broker.fetchsession.FetchContext;
import io.varve.broker.fetchsession.FetchSessionCache;
import io.varve.broker.fetchsession.SessionPartition.Answer;
import io.varve.broker.fetchsession.SessionPartition.Key;
import io.varve.broker.fetchsession.SessionPartition.PartitionFetch;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;

/**
 * One Fetch request seen through the session cache (KIP-227): the wire's session id, epoch, partitions and forgotten
 * topics in the cache's terms; the partitions to read as the request's own types, so the handler reads a session's
 * partitions as it reads a request's; and the response cut to what the client has not been told yet.
 */
final class FetchRequestSession {
    /** From this version partitions are named by topic id (KIP-516). */
    private static final short FIRST_TOPIC_ID_VERSION = 13;

    private final FetchContext context;
    private final boolean byId;

    private FetchRequestSession(FetchContext context, boolean byId) {
        this.context = context;
        this.byId = byId;
    }

    static FetchRequestSession open(FetchSessionCache cache, FetchRequestData data, short version, boolean follower) {
        boolean byId = version >= FIRST_TOPIC_ID_VERSION;
        List<PartitionFetch> named = new ArrayList<>();
        for (FetchTopic topic : data.topics()) {
            for (FetchPartition p : topic.partitions()) {
                named.add(new PartitionFetch(
                        key(byId, topic.topicId(), topic.topic(), p.partition()),
                        p.fetchOffset(),
                        p.currentLeaderEpoch(),
                        p.lastFetchedEpoch(),
                        p.logStartOffset(),
                        p.partitionMaxBytes(),
                        p.highWatermark()));
            }
        }
        List<Key> forgotten = new ArrayList<>();
        for (FetchRequestData.ForgottenTopic topic : data.forgottenTopicsData()) {
            for (int partition : topic.partitions()) {
                forgotten.add(key(byId, topic.topicId(), topic.topic(), partition));
            }
        }
        FetchContext context =
                cache.newContext(data.sessionId(), data.sessionEpoch(), byId, follower, named, forgotten);
        return new FetchRequestSession(context, byId);
    }

    private static Key key(boolean byId, org.apache.kafka.common.Uuid topicId, String topic, int partition) {
        return byId ? Key.byId(topicId, partition) : Key.byName(topic, partition);
    }

    /** NONE, or the error that refuses the whole request (FETCH_SESSION_ID_NOT_FOUND …). */
    Errors error() {
        return context.error();
    }

    /** The answer to a refused request: the error, session id 0 and no partitions. */
    FetchResponseData errorResponse() {
        return new FetchResponseData().setErrorCode(error().code()).setSessionId(FetchContext.NO_SESSION);
    }

    /** The partitions to read, grouped by topic in reading order (a topic can come back after another). */
    List<FetchTopic> topicsToRead() {
        List<FetchTopic> topics = new ArrayList<>();
        FetchTopic current = null;
        for (PartitionFetch f : context.toRead()) {
            Key key = f.key();
            boolean sameTopic = current != null
                    && (byId
                            ? current.topicId().equals(key.topicId())
                            : current.topic().equals(key.topic()));
            if (!sameTopic) {
                current = new FetchTopic();
                if (byId) {
                    current.setTopicId(key.topicId());
                } else {
                    current.setTopic(key.topic());
                }
                topics.add(current);
            }
            current.partitions()
                    .add(new FetchPartition()
                            .setPartition(key.partition())
                            .setFetchOffset(f.fetchOffset())
                            .setCurrentLeaderEpoch(f.currentLeaderEpoch())
                            .setLastFetchedEpoch(f.lastFetchedEpoch())
                            .setLogStartOffset(f.logStartOffsetOfFollower())
                            .setPartitionMaxBytes(f.maxBytes())
                            .setHighWatermark(f.highWatermarkOfFollower()));
        }
        return topics;
    }

    /**
     * Gives the response its session id and, for an incremental request, removes the partitions whose offsets did
     * not change and that carry no records, error or directive.
     */
    FetchResponseData finish(FetchResponseData response) {
        response.setSessionId(context.responseSessionId());
        if (context.kind() == FetchContext.Kind.SESSIONLESS) {
            return response;
        }
        List<Answer> answers = new ArrayList<>();
        for (FetchableTopicResponse topic : response.responses()) {
            for (PartitionData p : topic.partitions()) {
                answers.add(new Answer(
                        key(byId, topic.topicId(), topic.topic(), p.partitionIndex()),
                        p.errorCode(),
                        p.highWatermark(),
                        p.lastStableOffset(),
                        p.logStartOffset(),
                        p.records() == null ? 0 : p.records().sizeInBytes(),
                        (p.divergingEpoch() != null && p.divergingEpoch().epoch() >= 0)
                                || p.preferredReadReplica() >= 0));
            }
        }
        boolean[] send = context.answered(answers);
        if (context.kind() != FetchContext.Kind.INCREMENTAL) {
            return response;
        }
        // rebuilt rather than removed from: most of a large session's partitions go
        int i = 0;
        List<FetchableTopicResponse> kept = new ArrayList<>();
        for (FetchableTopicResponse topic : response.responses()) {
            List<PartitionData> changed = new ArrayList<>();
            for (PartitionData p : topic.partitions()) {
                if (send[i++]) {
                    changed.add(p);
                }
            }
            if (!changed.isEmpty()) {
                kept.add(topic.setPartitions(changed));
            }
        }
        response.setResponses(kept);
        return response;
    }
}

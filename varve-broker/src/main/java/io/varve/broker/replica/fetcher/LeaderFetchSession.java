package io.varve.broker.replica.fetcher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The client side of a fetch session with one leader (KIP-227), as a follower keeps it: the first request is full
 * (epoch 0, every partition); once the leader answers with a session id, each request carries the next epoch and
 * names only the partitions added or whose fetch position or known high watermark (KIP-1166) changed since the last request, and forgets the ones no
 * longer fetched. A session error (FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH …) or a request without an
 * answer makes the next request full again. Pure: the fetcher sends and receives; this only builds and learns.
 * Not thread-safe: one fetcher thread owns it.
 */
final class LeaderFetchSession {
    static final int NO_SESSION = 0;
    static final int INITIAL_EPOCH = 0;

    /** What a request asks of one partition; a change of any field sends the partition again. */
    record PartitionState(
            Uuid topicId,
            long fetchOffset,
            int currentLeaderEpoch,
            int lastFetchedEpoch,
            long logStartOffset,
            int maxBytes,
            long highWatermark) {}

    private int sessionId = NO_SESSION;
    /** The epoch of the next request: 0 for a full one. */
    private int nextEpoch = INITIAL_EPOCH;
    /** The partitions as the leader's session holds them after the last request. */
    private Map<TopicPartition, PartitionState> session = new LinkedHashMap<>();

    private boolean lastFull;
    private int lastPartitionsNamed;

    /**
     * Sets the session id, epoch, partitions and forgotten topics of {@code request} for fetching {@code next}
     * (in its order) now.
     */
    FetchRequestData build(FetchRequestData request, Map<TopicPartition, PartitionState> next) {
        request.setSessionId(sessionId).setSessionEpoch(nextEpoch);
        lastFull = nextEpoch == INITIAL_EPOCH;
        Map<Uuid, FetchRequestData.FetchTopic> topics = new LinkedHashMap<>();
        lastPartitionsNamed = 0;
        for (Map.Entry<TopicPartition, PartitionState> e : next.entrySet()) {
            if (!lastFull && e.getValue().equals(session.get(e.getKey()))) {
                continue; // the leader has it as it is
            }
            TopicPartition tp = e.getKey();
            PartitionState s = e.getValue();
            topics.computeIfAbsent(s.topicId(), id -> new FetchRequestData.FetchTopic()
                            .setTopicId(id)
                            .setTopic(tp.topic()))
                    .partitions()
                    .add(new FetchRequestData.FetchPartition()
                            .setPartition(tp.partition())
                            .setCurrentLeaderEpoch(s.currentLeaderEpoch())
                            .setFetchOffset(s.fetchOffset())
                            .setLastFetchedEpoch(s.lastFetchedEpoch())
                            .setLogStartOffset(s.logStartOffset())
                            .setPartitionMaxBytes(s.maxBytes())
                            .setHighWatermark(s.highWatermark()));
            lastPartitionsNamed++;
        }
        request.setTopics(new ArrayList<>(topics.values()));
        List<FetchRequestData.ForgottenTopic> forgotten = new ArrayList<>();
        if (!lastFull) {
            Map<Uuid, FetchRequestData.ForgottenTopic> byTopic = new LinkedHashMap<>();
            for (Map.Entry<TopicPartition, PartitionState> e : session.entrySet()) {
                if (!next.containsKey(e.getKey())) {
                    byTopic.computeIfAbsent(e.getValue().topicId(), id -> new FetchRequestData.ForgottenTopic()
                                    .setTopicId(id)
                                    .setTopic(e.getKey().topic()))
                            .partitions()
                            .add(e.getKey().partition());
                }
            }
            forgotten.addAll(byTopic.values());
        }
        request.setForgottenTopicsData(forgotten);
        session = new LinkedHashMap<>(next);
        return request;
    }

    /**
     * Learns from the leader's answer to the last request.
     *
     * @return false when the answer is a session error: nothing in it is usable and the next request is full
     */
    boolean handleResponse(FetchResponseData response) {
        Errors error = Errors.forCode(response.errorCode());
        if (error != Errors.NONE) {
            if (error == Errors.FETCH_SESSION_ID_NOT_FOUND) {
                sessionId = NO_SESSION;
            }
            nextEpoch = INITIAL_EPOCH; // a full request naming the old id closes it on the leader
            return false;
        }
        if (response.sessionId() == NO_SESSION) {
            sessionId = NO_SESSION; // no slot on the leader, or it closed the session
            nextEpoch = INITIAL_EPOCH;
        } else if (lastFull) {
            sessionId = response.sessionId();
            nextEpoch = 1;
        } else if (response.sessionId() != sessionId) {
            nextEpoch = INITIAL_EPOCH; // not the session asked for: start over
        } else {
            nextEpoch = nextEpoch == Integer.MAX_VALUE ? 1 : nextEpoch + 1;
        }
        return true;
    }

    /** The last request got no answer (timeout, lost connection): its effect on the leader is unknown. */
    void handleError() {
        nextEpoch = INITIAL_EPOCH;
    }

    int sessionId() {
        return sessionId;
    }

    /** True when the next request is full. */
    boolean nextIsFull() {
        return nextEpoch == INITIAL_EPOCH;
    }

    /** The partitions the last request named (all of them when it was full). */
    int lastPartitionsNamed() {
        return lastPartitionsNamed;
    }
}

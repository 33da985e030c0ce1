package io.varve.broker.replica.fetcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.replica.fetcher.LeaderFetchSession.PartitionState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class LeaderFetchSessionTest {
    private static final Uuid TOPIC = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    private final LeaderFetchSession session = new LeaderFetchSession();

    private static Map<TopicPartition, PartitionState> partitions(long... offsets) {
        Map<TopicPartition, PartitionState> next = new LinkedHashMap<>();
        for (int p = 0; p < offsets.length; p++) {
            next.put(new TopicPartition("t", p), new PartitionState(TOPIC, offsets[p], 3, 2, 0, 1_000, 0));
        }
        return next;
    }

    private FetchRequestData build(Map<TopicPartition, PartitionState> next) {
        return session.build(new FetchRequestData(), next);
    }

    private static List<Integer> named(FetchRequestData request) {
        return request.topics().stream()
                .flatMap(t -> t.partitions().stream())
                .map(FetchRequestData.FetchPartition::partition)
                .toList();
    }

    private static List<Integer> forgotten(FetchRequestData request) {
        return request.forgottenTopicsData().stream()
                .flatMap(t -> t.partitions().stream())
                .toList();
    }

    private static FetchResponseData answer(int sessionId) {
        return new FetchResponseData().setSessionId(sessionId);
    }

    /** A full request answered with session 7: the next one is incremental at epoch 1. */
    private void openSession(long... offsets) {
        build(partitions(offsets));
        assertThat(session.handleResponse(answer(7))).isTrue();
    }

    @Test
    void theFirstRequestIsFullAndNamesEveryPartition() {
        FetchRequestData request = build(partitions(0, 0, 0));
        assertThat(request.sessionId()).isZero();
        assertThat(request.sessionEpoch()).isZero();
        assertThat(named(request)).containsExactly(0, 1, 2);
        assertThat(request.topics().get(0).topicId()).isEqualTo(TOPIC);
    }

    @Test
    void afterTheLeaderOpensASessionOnlyChangedPartitionsAreSent() {
        openSession(0, 0, 0);
        FetchRequestData request = build(partitions(0, 5, 0));
        assertThat(request.sessionId()).isEqualTo(7);
        assertThat(request.sessionEpoch()).isEqualTo(1);
        assertThat(named(request)).containsExactly(1);
        assertThat(request.topics().get(0).partitions().get(0).fetchOffset()).isEqualTo(5);
        assertThat(forgotten(request)).isEmpty();
        assertThat(session.handleResponse(answer(7))).isTrue();
        FetchRequestData unchanged = build(partitions(0, 5, 0));
        assertThat(unchanged.sessionEpoch()).isEqualTo(2);
        assertThat(unchanged.topics()).isEmpty();
    }

    @Test
    void partitionsNoLongerFetchedAreForgottenAndComeBackAsAdded() {
        openSession(0, 0, 0);
        Map<TopicPartition, PartitionState> without1 = partitions(0, 0, 0);
        without1.remove(new TopicPartition("t", 1));
        FetchRequestData request = build(without1);
        assertThat(named(request)).isEmpty();
        assertThat(forgotten(request)).containsExactly(1);
        assertThat(request.forgottenTopicsData().get(0).topicId()).isEqualTo(TOPIC);
        session.handleResponse(answer(7));
        FetchRequestData back = build(partitions(0, 0, 0));
        assertThat(named(back)).containsExactly(1);
        assertThat(forgotten(back)).isEmpty();
    }

    @Test
    void aNewLeaderEpochSendsThePartitionAgain() {
        openSession(0, 0);
        Map<TopicPartition, PartitionState> next = partitions(0, 0);
        next.put(new TopicPartition("t", 0), new PartitionState(TOPIC, 0, 4, 2, 0, 1_000, 0));
        assertThat(named(build(next))).containsExactly(0);
    }

    @Test
    void aMovedHighWatermarkSendsThePartitionAgainWithIt() {
        openSession(0, 0);
        Map<TopicPartition, PartitionState> next = partitions(0, 0);
        next.put(new TopicPartition("t", 1), new PartitionState(TOPIC, 0, 3, 2, 0, 1_000, 42));
        FetchRequestData request = build(next);
        assertThat(named(request)).containsExactly(1);
        assertThat(request.topics().get(0).partitions().get(0).highWatermark()).isEqualTo(42);
    }

    @Test
    void sessionIdNotFoundStartsAFreshFullSession() {
        openSession(0, 0);
        build(partitions(1, 0));
        FetchResponseData refused = answer(0).setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
        assertThat(session.handleResponse(refused)).isFalse();
        FetchRequestData full = build(partitions(1, 0));
        assertThat(full.sessionId()).isZero();
        assertThat(full.sessionEpoch()).isZero();
        assertThat(named(full)).containsExactly(0, 1);
    }

    @Test
    void anInvalidEpochClosesTheSessionWithAFullRequestNamingIt() {
        openSession(0, 0);
        build(partitions(1, 0));
        FetchResponseData refused = answer(0).setErrorCode(Errors.INVALID_FETCH_SESSION_EPOCH.code());
        assertThat(session.handleResponse(refused)).isFalse();
        FetchRequestData full = build(partitions(1, 0));
        assertThat(full.sessionId()).isEqualTo(7);
        assertThat(full.sessionEpoch()).isZero();
        assertThat(named(full)).containsExactly(0, 1);
    }

    @Test
    void aRequestWithoutAnAnswerMakesTheNextOneFull() {
        openSession(0, 0);
        build(partitions(1, 0));
        session.handleError();
        assertThat(session.nextIsFull()).isTrue();
        assertThat(named(build(partitions(1, 0)))).containsExactly(0, 1);
    }

    @Test
    void aLeaderWithoutSessionSlotsIsAskedInFullEveryTime() {
        build(partitions(0, 0));
        assertThat(session.handleResponse(answer(0))).isTrue();
        FetchRequestData again = build(partitions(0, 0));
        assertThat(again.sessionEpoch()).isZero();
        assertThat(named(again)).containsExactly(0, 1);
    }

    @Test
    void aSessionClosedByTheLeaderIsReopenedInFull() {
        openSession(0, 0);
        build(partitions(0, 0));
        assertThat(session.handleResponse(answer(0))).isTrue();
        assertThat(session.sessionId()).isZero();
        assertThat(named(build(partitions(0, 0)))).containsExactly(0, 1);
    }
}

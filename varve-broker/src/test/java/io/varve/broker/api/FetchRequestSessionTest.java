package io.varve.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.fetchsession.FetchSessionCache;
import io.varve.broker.protocol.WireRecords;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class FetchRequestSessionTest {
    private static final Uuid A = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    private static final Uuid B = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAg");
    private static final short V17 = 17;

    private final AtomicInteger ids = new AtomicInteger(40);
    private final FetchSessionCache cache = new FetchSessionCache(10, 120_000, () -> 0L, ids::incrementAndGet);

    private static FetchRequestData request(int sessionId, int epoch, FetchTopic... topics) {
        FetchRequestData data = new FetchRequestData().setSessionId(sessionId).setSessionEpoch(epoch);
        data.topics().addAll(List.of(topics));
        return data;
    }

    private static FetchTopic topic(Uuid id, int... partitions) {
        FetchTopic t = new FetchTopic().setTopicId(id);
        for (int p : partitions) {
            t.partitions()
                    .add(new FetchPartition().setPartition(p).setFetchOffset(0).setPartitionMaxBytes(1_000));
        }
        return t;
    }

    /** What the handler would answer after reading {@code read}: high watermark 5, records where asked. */
    private static FetchResponseData answer(List<FetchTopic> read, int partitionWithRecords) {
        FetchResponseData response = new FetchResponseData();
        for (FetchTopic t : read) {
            FetchableTopicResponse out = new FetchableTopicResponse().setTopicId(t.topicId());
            for (FetchPartition p : t.partitions()) {
                boolean records = t.topicId().equals(B) && p.partition() == partitionWithRecords;
                out.partitions()
                        .add(new PartitionData()
                                .setPartitionIndex(p.partition())
                                .setHighWatermark(5)
                                .setLastStableOffset(5)
                                .setLogStartOffset(0)
                                .setRecords(records ? WireRecords.of(ByteBuffer.allocate(70)) : WireRecords.empty()));
            }
            response.responses().add(out);
        }
        return response;
    }

    private static List<String> partitions(FetchResponseData response) {
        return response.responses().stream()
                .flatMap(
                        t -> t.partitions().stream().map(p -> (t.topicId().equals(A) ? "a" : "b") + p.partitionIndex()))
                .toList();
    }

    @Test
    void aFullFetchGetsASessionIdAndEveryPartition() {
        FetchRequestSession session =
                FetchRequestSession.open(cache, request(0, 0, topic(A, 0, 1), topic(B, 0)), V17, false);
        FetchResponseData response = session.finish(answer(session.topicsToRead(), -1));
        assertThat(response.sessionId()).isEqualTo(41);
        assertThat(partitions(response)).containsExactly("a0", "a1", "b0");
    }

    @Test
    void anIncrementalFetchReadsTheWholeSessionAndAnswersOnlyPartitionsWithNews() {
        FetchRequestSession full =
                FetchRequestSession.open(cache, request(0, 0, topic(A, 0, 1), topic(B, 0)), V17, false);
        int id = full.finish(answer(full.topicsToRead(), -1)).sessionId();

        FetchRequestSession next = FetchRequestSession.open(cache, request(id, 1), V17, false);
        assertThat(next.topicsToRead()).extracting(FetchTopic::topicId).containsExactly(A, B);
        FetchResponseData response = next.finish(answer(next.topicsToRead(), 0));
        assertThat(response.sessionId()).isEqualTo(id);
        assertThat(partitions(response)).containsExactly("b0"); // topic a had nothing new: left out entirely
    }

    @Test
    void aDivergingEpochIsAlwaysAnswered() {
        FetchRequestSession full = FetchRequestSession.open(cache, request(0, 0, topic(A, 0)), V17, true);
        int id = full.finish(answer(full.topicsToRead(), -1)).sessionId();
        FetchRequestSession next = FetchRequestSession.open(cache, request(id, 1), V17, true);
        FetchResponseData response = answer(next.topicsToRead(), -1);
        response.responses()
                .get(0)
                .partitions()
                .get(0)
                .divergingEpoch()
                .setEpoch(3)
                .setEndOffset(4);
        assertThat(partitions(next.finish(response))).containsExactly("a0");
    }

    @Test
    void forgottenTopicsLeaveTheSession() {
        FetchRequestSession full = FetchRequestSession.open(cache, request(0, 0, topic(A, 0, 1)), V17, false);
        int id = full.finish(answer(full.topicsToRead(), -1)).sessionId();
        FetchRequestData forget = request(id, 1);
        forget.forgottenTopicsData()
                .add(new FetchRequestData.ForgottenTopic().setTopicId(A).setPartitions(List.of(0)));
        FetchRequestSession next = FetchRequestSession.open(cache, forget, V17, false);
        assertThat(next.topicsToRead().get(0).partitions())
                .extracting(FetchPartition::partition)
                .containsExactly(1);
    }

    @Test
    void oldVersionsKeepSessionsByTopicName() {
        FetchTopic byName = new FetchTopic().setTopic("t");
        byName.partitions().add(new FetchPartition().setPartition(0).setPartitionMaxBytes(1_000));
        FetchRequestSession full = FetchRequestSession.open(cache, request(0, 0, byName), (short) 12, false);
        FetchResponseData first = new FetchResponseData();
        first.responses()
                .add(new FetchableTopicResponse()
                        .setTopic("t")
                        .setPartitions(new java.util.ArrayList<>(List.of(new PartitionData()
                                .setPartitionIndex(0)
                                .setHighWatermark(1)
                                .setRecords(WireRecords.empty())))));
        int id = full.finish(first).sessionId();
        FetchRequestSession next = FetchRequestSession.open(cache, request(id, 1), (short) 12, false);
        assertThat(next.topicsToRead()).extracting(FetchTopic::topic).containsExactly("t");
        assertThat(FetchRequestSession.open(cache, request(id, 2), V17, false).error())
                .isEqualTo(Errors.FETCH_SESSION_TOPIC_ID_ERROR);
    }

    @Test
    void anUnknownSessionIsRefusedAsAWholeWithSessionIdZero() {
        FetchRequestSession session = FetchRequestSession.open(cache, request(999, 3, topic(A, 0)), V17, false);
        assertThat(session.error()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        FetchResponseData response = session.errorResponse();
        assertThat(response.errorCode()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());
        assertThat(response.sessionId()).isZero();
        assertThat(response.responses()).isEmpty();
    }
}

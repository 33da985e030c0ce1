package io.varve.broker.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.share.RecordState;
import io.varve.coordinator.share.SharePartition;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class CoordinatorShareStateStoreTest {
    private static final SharePartitionKey KEY = new SharePartitionKey("g", Uuid.randomUuid(), 0);

    /** A request sent, and the answer the test gives it. */
    private record Sent(int node, ApiKeys api, ApiMessage body, CompletableFuture<ApiMessage> answer) {}

    private final List<Sent> sent = new ArrayList<>();
    private final AtomicInteger coordinator = new AtomicInteger(1);
    private final AtomicLong clock = new AtomicLong();

    private CoordinatorShareStateStore store(long deadlineMs) {
        CoordinatorShareStateStore.Locator locator = new CoordinatorShareStateStore.Locator() {
            @Override
            public int coordinatorNode(SharePartitionKey key) {
                return coordinator.get();
            }

            @Override
            public List<SharePartitionKey> localKeys(String groupId) {
                return List.of();
            }
        };
        CoordinatorShareStateStore.Channel channel = (node, api, body) -> {
            CompletableFuture<ApiMessage> answer = new CompletableFuture<>();
            synchronized (sent) {
                sent.add(new Sent(node, api, body, answer));
            }
            return answer;
        };
        return new CoordinatorShareStateStore(locator, channel, clock::get, Runnable::run, 1, deadlineMs, () -> {});
    }

    private static SharePartition.Snapshot startingAt(long offset) {
        return new SharePartition.Snapshot(
                offset, List.of(new SharePartition.StateBatch(offset, offset, RecordState.ACKNOWLEDGED, 1)));
    }

    private static WriteShareGroupStateResponseData writeAnswer(Errors error) {
        WriteShareGroupStateResponseData r = new WriteShareGroupStateResponseData();
        r.results()
                .add(new WriteShareGroupStateResponseData.WriteStateResult()
                        .setTopicId(KEY.topicId())
                        .setPartitions(List.of(new WriteShareGroupStateResponseData.PartitionResult()
                                .setPartition(0)
                                .setErrorCode(error.code()))));
        return r;
    }

    private static long startOffsetOf(Sent s) {
        return ((WriteShareGroupStateRequestData) s.body())
                .topics()
                .get(0)
                .partitions()
                .get(0)
                .startOffset();
    }

    private Sent sent(int i) {
        synchronized (sent) {
            return sent.get(i);
        }
    }

    private int sentCount() {
        synchronized (sent) {
            return sent.size();
        }
    }

    @Test
    void writesOfOneKeyGoOneAtATimeAndAWaitingWriteTakesTheLatestState() throws Exception {
        CoordinatorShareStateStore store = store(10_000);
        CompletableFuture<Errors> first = store.write(KEY, 0, 1, startingAt(1));
        CompletableFuture<Errors> second = store.write(KEY, 0, 1, startingAt(2));
        CompletableFuture<Errors> third = store.write(KEY, 0, 1, startingAt(3));
        assertThat(sentCount()).as("one write in flight per key").isEqualTo(1);
        assertThat(startOffsetOf(sent(0))).isEqualTo(1);

        sent(0).answer().complete(writeAnswer(Errors.NONE));
        assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo(Errors.NONE);
        assertThat(sentCount()).as("the second and third writes went as one").isEqualTo(2);
        assertThat(startOffsetOf(sent(1))).as("with the latest state").isEqualTo(3);
        assertThat(second).isNotDone();

        sent(1).answer().complete(writeAnswer(Errors.NONE));
        assertThat(second.get(5, TimeUnit.SECONDS)).isEqualTo(Errors.NONE);
        assertThat(third.get(5, TimeUnit.SECONDS)).isEqualTo(Errors.NONE);
        assertThat(sentCount()).isEqualTo(2);
    }

    @Test
    void aRetriableAnswerIsSentAgainToTheCoordinatorTheMetadataNamesThen() throws Exception {
        CoordinatorShareStateStore store = store(10_000);
        CompletableFuture<Errors> write = store.write(KEY, 0, 1, startingAt(5));
        coordinator.set(2);
        sent(0).answer().complete(writeAnswer(Errors.NOT_COORDINATOR));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (sentCount() < 2) {
            assertThat(System.nanoTime()).as("the retry was sent").isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(sent(1).node()).isEqualTo(2);
        assertThat(startOffsetOf(sent(1))).isEqualTo(5);
        sent(1).answer().complete(writeAnswer(Errors.NONE));
        assertThat(write.get(5, TimeUnit.SECONDS)).isEqualTo(Errors.NONE);
    }

    @Test
    void aDroppedConnectionPastTheDeadlineAnswersWithTheRetriableError() throws Exception {
        CoordinatorShareStateStore store = store(100);
        CompletableFuture<Errors> write = store.write(KEY, 0, 1, startingAt(5));
        clock.set(1_000);
        sent(0).answer()
                .completeExceptionally(new io.varve.broker.network.client.NodeClient.DisconnectedException("gone"));
        assertThat(write.get(5, TimeUnit.SECONDS)).isEqualTo(Errors.NETWORK_EXCEPTION);
        assertThat(sentCount()).isEqualTo(1);
    }

    @Test
    void aFencingAnswerIsNotRetried() throws Exception {
        CoordinatorShareStateStore store = store(10_000);
        CompletableFuture<Errors> write = store.write(KEY, 0, 1, startingAt(5));
        sent(0).answer().complete(writeAnswer(Errors.FENCED_LEADER_EPOCH));
        assertThat(write.get(5, TimeUnit.SECONDS)).isEqualTo(Errors.FENCED_LEADER_EPOCH);
        assertThat(sentCount()).isEqualTo(1);
    }

    @Test
    void deletingAGroupSendsOneRequestPerCoordinatorWithAllItsKeys() throws Exception {
        Uuid other = Uuid.randomUuid();
        List<SharePartitionKey> keys = List.of(
                new SharePartitionKey("g", KEY.topicId(), 0),
                new SharePartitionKey("g", KEY.topicId(), 1),
                new SharePartitionKey("g", other, 0));
        CoordinatorShareStateStore.Locator byTopic = new CoordinatorShareStateStore.Locator() {
            @Override
            public int coordinatorNode(SharePartitionKey key) {
                return key.topicId().equals(other) ? 2 : 1;
            }

            @Override
            public List<SharePartitionKey> localKeys(String groupId) {
                return List.of();
            }
        };
        CoordinatorShareStateStore store = new CoordinatorShareStateStore(
                byTopic,
                (node, api, body) -> {
                    synchronized (sent) {
                        sent.add(new Sent(node, api, body, new CompletableFuture<>()));
                    }
                    return CompletableFuture.completedFuture(
                            new org.apache.kafka.common.message.DeleteShareGroupStateResponseData());
                },
                clock::get,
                Runnable::run,
                1,
                1_000,
                () -> {});
        store.deleteAll(keys).get(5, TimeUnit.SECONDS);
        assertThat(sentCount()).isEqualTo(2);
        Sent toOne = sent(0).node() == 1 ? sent(0) : sent(1);
        var request = (org.apache.kafka.common.message.DeleteShareGroupStateRequestData) toOne.body();
        assertThat(toOne.api()).isEqualTo(ApiKeys.DELETE_SHARE_GROUP_STATE);
        assertThat(request.topics()).hasSize(1);
        assertThat(request.topics().get(0).partitions())
                .extracting(p -> p.partition())
                .containsExactly(0, 1);
    }
}

package io.varve.broker.fetchsession;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.fetchsession.FetchContext.Kind;
import io.varve.broker.fetchsession.SessionPartition.Answer;
import io.varve.broker.fetchsession.SessionPartition.Key;
import io.varve.broker.fetchsession.SessionPartition.PartitionFetch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class FetchSessionCacheTest {
    private static final Uuid TOPIC = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    private static final long MIN_AGE_MS = 120_000;

    private final AtomicLong nowMs = new AtomicLong(1_000);
    private final AtomicInteger ids = new AtomicInteger();

    private FetchSessionCache cache(int slots) {
        return new FetchSessionCache(slots, MIN_AGE_MS, nowMs::get, ids::incrementAndGet);
    }

    private static Key key(int partition) {
        return Key.byId(TOPIC, partition);
    }

    private static PartitionFetch fetch(int partition, long offset) {
        return new PartitionFetch(key(partition), offset, 0, -1, -1, 1_048_576);
    }

    private static List<PartitionFetch> fetches(int count) {
        return IntStream.range(0, count).mapToObj(p -> fetch(p, 0)).toList();
    }

    private static Answer answer(PartitionFetch f, long highWatermark, int recordsBytes) {
        return new Answer(f.key(), Errors.NONE.code(), highWatermark, highWatermark, 0, recordsBytes);
    }

    /** Answers every partition read with the same high watermark and no records. */
    private static boolean[] answerAll(FetchContext context, long highWatermark) {
        List<Answer> answers = new ArrayList<>();
        for (PartitionFetch f : context.toRead()) {
            answers.add(answer(f, highWatermark, 0));
        }
        return context.answered(answers);
    }

    private static FetchContext full(FetchSessionCache cache, List<PartitionFetch> named, boolean follower) {
        return cache.newContext(0, 0, true, follower, named, List.of());
    }

    private static FetchContext incremental(
            FetchSessionCache cache, int id, int epoch, List<PartitionFetch> named, List<Key> forgotten) {
        return cache.newContext(id, epoch, true, false, named, forgotten);
    }

    @Test
    void fullFetchWithPartitionsOpensASessionAndAnswersEveryPartition() {
        FetchSessionCache cache = cache(10);
        FetchContext context = full(cache, fetches(3), false);
        assertThat(context.kind()).isEqualTo(Kind.FULL);
        assertThat(context.responseSessionId()).isPositive();
        assertThat(answerAll(context, 5)).containsExactly(true, true, true);
        assertThat(cache.sessionCount()).isEqualTo(1);
        assertThat(cache.partitionsCached()).isEqualTo(3);
    }

    @Test
    void fullFetchWithoutPartitionsOpensNoSession() {
        FetchSessionCache cache = cache(10);
        FetchContext context = full(cache, List.of(), false);
        assertThat(context.kind()).isEqualTo(Kind.SESSIONLESS);
        assertThat(context.responseSessionId()).isZero();
        assertThat(cache.sessionCount()).isZero();
    }

    @Test
    void sessionlessFetchNeverOpensASession() {
        FetchSessionCache cache = cache(10);
        FetchContext context = cache.newContext(0, -1, true, false, fetches(2), List.of());
        assertThat(context.kind()).isEqualTo(Kind.SESSIONLESS);
        assertThat(context.responseSessionId()).isZero();
        assertThat(answerAll(context, 1)).containsExactly(true, true);
        assertThat(cache.sessionCount()).isZero();
    }

    @Test
    void zeroSlotsTurnSessionsOff() {
        FetchSessionCache cache = cache(0);
        FetchContext context = full(cache, fetches(2), true);
        assertThat(context.kind()).isEqualTo(Kind.SESSIONLESS);
        assertThat(context.responseSessionId()).isZero();
    }

    @Test
    void incrementalFetchReadsEveryPartitionButAnswersOnlyThoseThatChanged() {
        FetchSessionCache cache = cache(10);
        FetchContext first = full(cache, fetches(3), false);
        answerAll(first, 5);
        int id = first.responseSessionId();

        FetchContext second = incremental(cache, id, 1, List.of(), List.of());
        assertThat(second.kind()).isEqualTo(Kind.INCREMENTAL);
        assertThat(second.toRead()).extracting(PartitionFetch::key).containsExactly(key(0), key(1), key(2));
        List<Answer> answers = List.of(
                answer(second.toRead().get(0), 5, 0), // unchanged
                answer(second.toRead().get(1), 6, 0), // high watermark moved
                answer(second.toRead().get(2), 5, 100)); // records
        assertThat(second.answered(answers)).containsExactly(false, true, true);

        FetchContext third = incremental(cache, id, 2, List.of(), List.of());
        // partition 2 returned records: it moved to the end; partition 1 is unchanged now at 6
        assertThat(third.toRead()).extracting(PartitionFetch::key).containsExactly(key(0), key(1), key(2));
        assertThat(third.answered(List.of(
                        answer(third.toRead().get(0), 5, 0),
                        answer(third.toRead().get(1), 6, 0),
                        answer(third.toRead().get(2), 5, 0))))
                .containsExactly(false, false, false);
    }

    @Test
    void aChangedLogStartOrLastStableOffsetOrAnErrorIsAnswered() {
        FetchSessionCache cache = cache(10);
        FetchContext first = full(cache, fetches(3), false);
        answerAll(first, 5);
        FetchContext next = incremental(cache, first.responseSessionId(), 1, List.of(), List.of());
        List<PartitionFetch> read = next.toRead();
        assertThat(next.answered(List.of(
                        new Answer(read.get(0).key(), (short) 0, 5, 5, 3, 0), // log start moved
                        new Answer(read.get(1).key(), (short) 0, 5, 4, 0, 0), // last stable offset differs
                        new Answer(read.get(2).key(), Errors.NOT_LEADER_OR_FOLLOWER.code(), -1, -1, -1, 0))))
                .containsExactly(true, true, true);
        FetchContext after = incremental(cache, first.responseSessionId(), 2, List.of(), List.of());
        // the partition answered with an error is answered again once it recovers, even at the same offsets
        assertThat(after.answered(List.of(
                        new Answer(read.get(0).key(), (short) 0, 5, 5, 3, 0),
                        new Answer(read.get(1).key(), (short) 0, 5, 4, 0, 0),
                        new Answer(read.get(2).key(), (short) 0, 5, 5, 0, 0))))
                .containsExactly(false, false, true);
    }

    @Test
    void incrementalFetchAddsUpdatesAndForgetsPartitions() {
        FetchSessionCache cache = cache(10);
        FetchContext first = full(cache, fetches(3), false);
        answerAll(first, 5);
        int id = first.responseSessionId();
        FetchContext next = incremental(cache, id, 1, List.of(fetch(1, 42), fetch(7, 0)), List.of(key(0)));
        assertThat(next.toRead()).extracting(PartitionFetch::key).containsExactly(key(1), key(2), key(7));
        assertThat(next.toRead().get(0).fetchOffset()).isEqualTo(42);
        // the added partition has not been answered in this session yet: it is always in the response
        assertThat(answerAll(next, 5)).containsExactly(false, false, true);
        assertThat(cache.partitionsCached()).isEqualTo(3);
    }

    @Test
    void aSessionWhoseLastPartitionIsForgottenIsClosed() {
        FetchSessionCache cache = cache(10);
        FetchContext first = full(cache, fetches(1), false);
        FetchContext next = incremental(cache, first.responseSessionId(), 1, List.of(), List.of(key(0)));
        assertThat(next.kind()).isEqualTo(Kind.SESSIONLESS);
        assertThat(next.responseSessionId()).isZero();
        assertThat(cache.sessionCount()).isZero();
    }

    @Test
    void anUnknownSessionIdIsRefusedWithFetchSessionIdNotFound() {
        FetchContext context = incremental(cache(10), 12345, 1, List.of(), List.of());
        assertThat(context.kind()).isEqualTo(Kind.ERROR);
        assertThat(context.error()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        assertThat(context.responseSessionId()).isZero();
    }

    @Test
    void anEpochOutOfOrderIsRefusedWithInvalidFetchSessionEpochAndKeepsTheSession() {
        FetchSessionCache cache = cache(10);
        int id = full(cache, fetches(2), false).responseSessionId();
        assertThat(incremental(cache, id, 1, List.of(), List.of()).kind()).isEqualTo(Kind.INCREMENTAL);
        FetchContext replayed = incremental(cache, id, 1, List.of(), List.of());
        assertThat(replayed.error()).isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH);
        assertThat(incremental(cache, id, 3, List.of(), List.of()).error())
                .isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH);
        assertThat(incremental(cache, id, 2, List.of(), List.of()).kind()).isEqualTo(Kind.INCREMENTAL);
    }

    @Test
    void aSessionOpenedWithTopicIdsRefusesARequestByTopicName() {
        FetchSessionCache cache = cache(10);
        int id = full(cache, fetches(2), false).responseSessionId();
        FetchContext byName = cache.newContext(id, 1, false, false, List.of(), List.of());
        assertThat(byName.error()).isEqualTo(Errors.FETCH_SESSION_TOPIC_ID_ERROR);
    }

    @Test
    void aSessionByTopicNameWorksForOldVersions() {
        FetchSessionCache cache = cache(10);
        PartitionFetch byName = new PartitionFetch(Key.byName("t", 0), 0, 0, -1, -1, 100);
        FetchContext first = cache.newContext(0, 0, false, false, List.of(byName), List.of());
        FetchContext next = cache.newContext(first.responseSessionId(), 1, false, false, List.of(), List.of());
        assertThat(next.toRead()).extracting(PartitionFetch::key).containsExactly(Key.byName("t", 0));
    }

    @Test
    void closingEpochFreesTheSessionAndAnswersSessionless() {
        FetchSessionCache cache = cache(10);
        int id = full(cache, fetches(2), false).responseSessionId();
        FetchContext close = cache.newContext(id, -1, true, false, fetches(1), List.of());
        assertThat(close.kind()).isEqualTo(Kind.SESSIONLESS);
        assertThat(cache.sessionCount()).isZero();
        assertThat(incremental(cache, id, 1, List.of(), List.of()).error())
                .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
    }

    @Test
    void aFullFetchNamingASessionClosesItAndOpensANewOne() {
        FetchSessionCache cache = cache(10);
        int id = full(cache, fetches(2), false).responseSessionId();
        FetchContext reopened = cache.newContext(id, 0, true, false, fetches(2), List.of());
        assertThat(reopened.kind()).isEqualTo(Kind.FULL);
        assertThat(reopened.responseSessionId()).isNotEqualTo(id);
        assertThat(cache.sessionCount()).isEqualTo(1);
    }

    @Test
    void theEpochWrapsFromIntegerMaxToOne() {
        assertThat(FetchSession.epochAfter(1)).isEqualTo(2);
        assertThat(FetchSession.epochAfter(Integer.MAX_VALUE)).isEqualTo(1);
    }

    @Test
    void aFullCacheRefusesANewSessionOfTheSameValueWhileTheOldOnesAreYoung() {
        FetchSessionCache cache = cache(2);
        int a = full(cache, fetches(3), false).responseSessionId();
        int b = full(cache, fetches(3), false).responseSessionId();
        nowMs.addAndGet(MIN_AGE_MS + 1); // old enough, but used recently
        incremental(cache, a, 1, List.of(), List.of());
        incremental(cache, b, 1, List.of(), List.of());
        FetchContext third = full(cache, fetches(3), false);
        assertThat(third.kind()).isEqualTo(Kind.SESSIONLESS);
        assertThat(cache.sessionCount()).isEqualTo(2);
        assertThat(cache.evictions()).isZero();
    }

    @Test
    void aFullCacheEvictsTheLeastRecentlyUsedSessionOnceUnusedForTheMinimumAge() {
        FetchSessionCache cache = cache(2);
        int idle = full(cache, fetches(5), false).responseSessionId();
        nowMs.addAndGet(10);
        int busy = full(cache, fetches(5), false).responseSessionId();
        nowMs.addAndGet(MIN_AGE_MS);
        incremental(cache, busy, 1, List.of(), List.of());
        FetchContext small = full(cache, fetches(1), false);
        assertThat(small.kind()).isEqualTo(Kind.FULL);
        assertThat(cache.session(idle)).isNull();
        assertThat(cache.session(busy)).isNotNull();
        assertThat(cache.evictions()).isEqualTo(1);
    }

    @Test
    void aLargerSessionTakesTheSlotOfTheSmallestOldSession() {
        FetchSessionCache cache = cache(2);
        int small = full(cache, fetches(2), false).responseSessionId();
        int large = full(cache, fetches(10), false).responseSessionId();
        nowMs.addAndGet(MIN_AGE_MS + 1);
        incremental(cache, small, 1, List.of(), List.of());
        incremental(cache, large, 1, List.of(), List.of());
        FetchContext bigger = full(cache, fetches(5), false);
        assertThat(bigger.kind()).isEqualTo(Kind.FULL);
        assertThat(cache.session(small)).isNull();
        assertThat(cache.session(large)).isNotNull();
    }

    @Test
    void aYoungConsumerSessionIsSafeFromAnotherConsumerButNotFromAFollower() {
        FetchSessionCache cache = cache(1);
        int consumer = full(cache, fetches(2), false).responseSessionId();
        assertThat(full(cache, fetches(50), false).kind()).isEqualTo(Kind.SESSIONLESS);
        FetchContext follower = full(cache, fetches(1), true);
        assertThat(follower.kind()).isEqualTo(Kind.FULL);
        assertThat(cache.session(consumer)).isNull();
    }

    @Test
    void aYoungFollowerSessionIsSafeFromAnotherFollowerAndOldOnlyFromALargerFollower() {
        FetchSessionCache cache = cache(1);
        int follower = full(cache, fetches(20), true).responseSessionId();
        assertThat(full(cache, fetches(30), true).kind()).isEqualTo(Kind.SESSIONLESS);
        nowMs.addAndGet(MIN_AGE_MS + 1);
        incremental(cache, follower, 1, List.of(), List.of()).toRead();
        assertThat(full(cache, fetches(500), false).kind()).isEqualTo(Kind.SESSIONLESS); // a consumer never wins
        assertThat(full(cache, fetches(20), true).kind()).isEqualTo(Kind.SESSIONLESS); // not strictly larger
        assertThat(full(cache, fetches(21), true).kind()).isEqualTo(Kind.FULL);
        assertThat(cache.session(follower)).isNull();
    }

    @Test
    void sessionIdsAreNeverZeroNorTaken() {
        AtomicInteger n = new AtomicInteger();
        int[] sequence = {0, -5, 7, 7, 9};
        FetchSessionCache cache =
                new FetchSessionCache(10, MIN_AGE_MS, nowMs::get, () -> sequence[n.getAndIncrement()]);
        assertThat(full(cache, fetches(1), false).responseSessionId()).isEqualTo(7);
        assertThat(full(cache, fetches(1), false).responseSessionId()).isEqualTo(9);
    }
}

package io.varve.broker.replica.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.replica.state.PartitionState.IsrChange;
import io.varve.broker.replica.state.PartitionState.Outcome;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * Seeded random schedules of one leader and two followers against a model: leader appends, follower fetches (a
 * follower may stop fetching for a while, or fetch slowly), time passing, ISR checks, and the controller committing,
 * refusing or losing ISR changes. After every step: the high watermark never goes back and equals the model's (the
 * smallest end among the maximal ISR), every record below it is on every member of the maximal ISR (what acks=all
 * promises), the leader stays in its ISR, a follower joins only once caught up to the high watermark and this
 * epoch's start, and leaves only after lagging longer than the limit. A failure names its seed; run one seed alone
 * with {@code -Dvarve.seed=N}.
 */
class PartitionStatePropertyTest {
    private static final int SEEDS = 300;
    private static final int STEPS = 300;
    private static final int LEADER = 1;
    private static final int[] REPLICAS = {1, 2, 3};
    private static final long LAG_MAX_MS = 1_000;

    @Test
    void theHighWatermarkAndIsrFollowTheModelUnderRandomSchedules() {
        String only = System.getProperty("varve.seed");
        LongStream seeds = only != null ? LongStream.of(Long.parseLong(only)) : LongStream.range(0, SEEDS);
        seeds.forEach(seed -> {
            try {
                run(seed);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("seed " + seed + " failed (replay with -Dvarve.seed=" + seed + ")", e);
            }
        });
    }

    private static void run(long seed) {
        Random random = new Random(seed);
        long now = 1_000;
        PartitionState state = PartitionState.create(LEADER);
        long startOffset = random.nextInt(50);
        // every follower starts in sync with the previous leader, somewhere at or below the new leader's end
        Map<Integer, Long> followerLogEnd = new HashMap<>(Map.of(2, startOffset, 3, startOffset));
        state.becomeLeader(5, 10, REPLICAS, Set.of(1, 2, 3), startOffset, 0, now);
        long leaderEnd = startOffset;
        int partitionEpoch = 10;
        Set<Integer> committedIsr = new TreeSet<>(Set.of(1, 2, 3));
        IsrChange inFlight = null;
        // the model's view of what the leader knows: last fetch offset, caught-up time
        Map<Integer, Long> knownEnd = new HashMap<>(Map.of(2, -1L, 3, -1L));
        Map<Integer, Long> lastFetchMs = new HashMap<>(Map.of(2, 0L, 3, 0L));
        Map<Integer, Long> lastFetchLeaderEnd = new HashMap<>(Map.of(2, -1L, 3, -1L));
        Map<Integer, Long> caughtUpMs = new HashMap<>(Map.of(2, now, 3, now));
        Map<Integer, Boolean> alive = new HashMap<>(Map.of(2, true, 3, true));
        long highWatermark = state.highWatermark();

        for (int step = 0; step < STEPS; step++) {
            Optional<IsrChange> proposed = Optional.empty();
            int op = random.nextInt(100);
            if (op < 25) {
                leaderEnd += 1 + random.nextInt(5);
                Outcome outcome = state.leaderAppended(leaderEnd);
                proposed = outcome.isrChange();
            } else if (op < 60) {
                int f = 2 + random.nextInt(2);
                if (!alive.get(f)) {
                    continue;
                }
                long fetchOffset = followerLogEnd.get(f);
                long caught = caughtUpMs.get(f);
                if (fetchOffset >= leaderEnd) {
                    caught = Math.max(caught, now);
                } else if (fetchOffset >= lastFetchLeaderEnd.get(f)) {
                    caught = Math.max(caught, lastFetchMs.get(f));
                }
                caughtUpMs.put(f, caught);
                lastFetchMs.put(f, now);
                lastFetchLeaderEnd.put(f, leaderEnd);
                knownEnd.put(f, fetchOffset);
                boolean mayJoin = !committedIsr.contains(f)
                        && inFlight == null
                        && fetchOffset >= highWatermark
                        && fetchOffset >= startOffset;
                Outcome outcome = state.followerFetched(f, fetchOffset, leaderEnd, now);
                proposed = outcome.isrChange();
                assertThat(proposed.isPresent())
                        .as("a join proposed exactly when caught up")
                        .isEqualTo(mayJoin);
                // the response carries some of what the leader has; the follower appends it
                followerLogEnd.put(f, fetchOffset + random.nextInt((int) (leaderEnd - fetchOffset) + 1));
            } else if (op < 75) {
                now += random.nextInt(400);
            } else if (op < 82) {
                int f = 2 + random.nextInt(2);
                alive.put(f, !alive.get(f)); // a follower stops fetching (paused, cut off) or starts again
            } else if (op < 90) {
                Set<Integer> before = Set.copyOf(committedIsr);
                long at = now;
                proposed = state.maybeShrinkIsr(now, LAG_MAX_MS);
                if (inFlight == null) {
                    Set<Integer> expected = new TreeSet<>(before);
                    expected.removeIf(id -> id != LEADER && at - caughtUpMs.get(id) > LAG_MAX_MS);
                    assertThat(proposed.map(IsrChange::newIsr).orElse(before))
                            .as("the ISR keeps exactly the followers caught up within the lag limit")
                            .isEqualTo(expected);
                } else {
                    assertThat(proposed).as("one change in flight at a time").isEmpty();
                }
            } else if (inFlight != null) {
                int outcome = random.nextInt(3);
                if (outcome == 0) {
                    partitionEpoch++;
                    committedIsr = new TreeSet<>(inFlight.newIsr());
                    state.isrChangeCommitted(inFlight.leaderEpoch(), partitionEpoch, inFlight.newIsr());
                } else {
                    state.isrChangeFailed(); // refused (stale epoch) or lost; proposed again later
                }
                inFlight = null;
            }
            if (proposed.isPresent()) {
                assertThat(inFlight).as("one change in flight at a time").isNull();
                inFlight = proposed.get();
                assertThat(inFlight.partitionEpoch()).isEqualTo(partitionEpoch);
                assertThat(inFlight.newIsr()).contains(LEADER);
            }

            // the model's high watermark: the smallest known end of the maximal ISR, never going back
            Set<Integer> maximal = new TreeSet<>(committedIsr);
            if (inFlight != null) {
                maximal.addAll(inFlight.newIsr());
            }
            long candidate = leaderEnd;
            for (int id : maximal) {
                if (id != LEADER) {
                    candidate = Math.min(candidate, knownEnd.get(id));
                }
            }
            long expectedHw = Math.max(highWatermark, candidate);
            assertThat(state.highWatermark())
                    .as("high watermark at step " + step)
                    .isEqualTo(expectedHw);
            assertThat(state.highWatermark())
                    .isGreaterThanOrEqualTo(highWatermark)
                    .isLessThanOrEqualTo(leaderEnd);
            highWatermark = state.highWatermark();
            assertThat(state.isr()).isEqualTo(committedIsr).contains(LEADER);
            assertThat(state.maximalIsr()).isEqualTo(maximal);
            for (int id : maximal) {
                if (id != LEADER) {
                    assertThat(followerLogEnd.get(id))
                            .as("member " + id + " holds every committed record")
                            .isGreaterThanOrEqualTo(highWatermark);
                }
            }
        }
    }

    @Test
    void aNewLeadersHighWatermarkIsUnknownUntilItPassesTheEpochStart() {
        PartitionState state = PartitionState.create(1);
        state.becomeLeader(3, 0, REPLICAS, Set.of(1, 2, 3), 100, 90, 0);
        assertThat(state.highWatermark()).isEqualTo(90);
        assertThat(state.highWatermarkKnown()).isFalse();
        state.followerFetched(2, 100, 100, 1);
        assertThat(state.highWatermarkKnown()).isFalse();
        state.followerFetched(3, 100, 100, 1);
        assertThat(state.highWatermark()).isEqualTo(100);
        assertThat(state.highWatermarkKnown()).isTrue();
    }

    @Test
    void aSingleReplicaLeadersHighWatermarkIsItsLogEnd() {
        PartitionState state = PartitionState.create(1);
        state.becomeLeader(0, 0, new int[] {1}, Set.of(1), 0, 0, 0);
        assertThat(state.leaderAppended(7).highWatermarkMoved()).isTrue();
        assertThat(state.highWatermark()).isEqualTo(7);
    }

    @Test
    void aFollowersHighWatermarkIsTheLeadersBoundedByItsOwnLogEnd() {
        PartitionState state = PartitionState.create(2);
        state.becomeFollower(1, 4, 0, REPLICAS, Set.of(1, 2, 3), 10, 0);
        state.followerLogUpdated(20, 15);
        assertThat(state.highWatermark()).isEqualTo(15);
        state.followerLogUpdated(30, 40);
        assertThat(state.highWatermark()).isEqualTo(30);
    }

    @Test
    void aNewerImageAtTheSameEpochReplacesTheIsrAndEndsTheChangeInFlight() {
        PartitionState state = PartitionState.create(1);
        state.becomeLeader(0, 0, REPLICAS, Set.of(1, 2, 3), 0, 0, 0);
        assertThat(state.maybeShrinkIsr(5_000, LAG_MAX_MS)).isPresent();
        assertThat(state.isrChangeInFlight()).isTrue();
        state.imageUpdated(1, REPLICAS, Set.of(1, 2), 5_000);
        assertThat(state.isr()).containsExactlyInAnyOrder(1, 2);
        assertThat(state.isrChangeInFlight()).isFalse();
        state.imageUpdated(0, REPLICAS, Set.of(1, 2, 3), 5_000);
        assertThat(state.isr()).as("an older image changes nothing").containsExactlyInAnyOrder(1, 2);
    }
}

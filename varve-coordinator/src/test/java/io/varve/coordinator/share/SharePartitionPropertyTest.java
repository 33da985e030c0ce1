package io.varve.coordinator.share;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random fetches, acknowledgements, releases and clock moves from several members against a simple model of each
 * offset (holder, lock deadline, deliveries, done). A failing seed is printed; {@link #replay} runs one seed.
 */
class SharePartitionPropertyTest {
    private static final int SEEDS = 300;
    private static final int STEPS = 400;
    private static final int LIMIT = 3;
    private static final long LOCK_MS = 100;
    private static final String[] MEMBERS = {"a", "b", "c"};

    /** The model of one offset. */
    private static final class Model {
        String holder;
        long deadlineMs;
        int deliveries;
        boolean done;
    }

    @Test
    void everyRecordIsHeldByOneMemberAtATimeAndNeverDeliveredAfterItIsDone() {
        for (int seed = 0; seed < SEEDS; seed++) {
            try {
                replay(seed);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
            }
        }
    }

    private void replay(long seed) {
        Random random = new Random(seed);
        int maxInFlight = 5 + random.nextInt(30);
        SharePartition p = new SharePartition(0, LIMIT, maxInFlight);
        Map<Long, Model> model = new HashMap<>();
        long logEnd = 0;
        long now = 0;
        for (int step = 0; step < STEPS; step++) {
            String member = MEMBERS[random.nextInt(MEMBERS.length)];
            long at = now;
            int op = random.nextInt(10);
            if (op < 2) {
                logEnd += 1 + random.nextInt(8);
            } else if (op < 4) {
                now += random.nextInt((int) LOCK_MS);
            } else if (op < 6) {
                long from = p.nextFetchOffset(now);
                List<long[]> batches = new ArrayList<>();
                for (long o = from; o < logEnd; o += 3) {
                    batches.add(new long[] {o, Math.min(o + 2, logEnd - 1)});
                }
                for (SharePartition.AcquiredRange r :
                        p.acquire(member, batches, 1 + random.nextInt(10), LOCK_MS, now)) {
                    for (long o = r.firstOffset(); o <= r.lastOffset(); o++) {
                        Model m = model.computeIfAbsent(o, k -> new Model());
                        assertThat(m.done)
                                .as("offset %d acquired after it was done", o)
                                .isFalse();
                        boolean held = m.holder != null && m.deadlineMs > now;
                        assertThat(held)
                                .as("offset %d acquired while %s holds it", o, m.holder)
                                .isFalse();
                        m.deliveries++;
                        assertThat(r.deliveryCount()).isEqualTo(m.deliveries);
                        assertThat(m.deliveries).isLessThanOrEqualTo(LIMIT);
                        m.holder = member;
                        m.deadlineMs = now + LOCK_MS;
                    }
                }
            } else if (op < 9) {
                List<Long> mine = new ArrayList<>();
                model.forEach((o, m) -> {
                    if (member.equals(m.holder) && m.deadlineMs > at && !m.done) {
                        mine.add(o);
                    }
                });
                long o = mine.isEmpty() || random.nextInt(5) == 0
                        ? random.nextInt((int) Math.max(1, logEnd))
                        : mine.get(random.nextInt(mine.size()));
                AcknowledgeType type = AcknowledgeType.values()[1 + random.nextInt(3)];
                Model m = model.get(o);
                boolean allowed = m != null && member.equals(m.holder) && m.deadlineMs > now && !m.done;
                assertThat(p.acknowledge(member, o, o, type, now))
                        .as("ack %d by %s", o, member)
                        .isEqualTo(allowed);
                if (allowed) {
                    m.holder = null;
                    m.done = type != AcknowledgeType.RELEASE || m.deliveries >= LIMIT;
                }
            } else {
                p.releaseAll(member);
                model.values().forEach(m -> {
                    if (member.equals(m.holder) && m.deadlineMs > at) {
                        m.holder = null;
                        m.done = m.done || m.deliveries >= LIMIT;
                    }
                });
            }
            // an expired lock at the limit makes its record done
            for (Model m : model.values()) {
                if (m.holder != null && m.deadlineMs <= now) {
                    m.holder = null;
                    m.done = m.done || m.deliveries >= LIMIT;
                }
            }
            p.expireLocks(now);
            p.checkInvariants();
            assertThat(p.endOffset() - p.startOffset()).isLessThanOrEqualTo(maxInFlight);
            for (long o = 0; o < p.startOffset(); o++) {
                Model m = model.get(o);
                assertThat(m != null && m.done)
                        .as("offset %d below the start offset but not done", o)
                        .isTrue();
            }
        }
    }
}

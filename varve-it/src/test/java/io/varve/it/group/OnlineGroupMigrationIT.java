package io.varve.it.group;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.SharedBroker;
import io.varve.it.group.GroupClients.Member;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.common.GroupType;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Online migration between the group protocols with kafka-clients 4.4: a classic group of three consumers reading
 * a topic under steady produce is restarted member by member with {@code group.protocol=consumer} (the group
 * becomes a consumer group with the first one), then member by member back to the classic protocol (it becomes a
 * classic group again when the last consumer-protocol member leaves). Every record is consumed, none twice except
 * those whose commit failed, and consumption never stops for much longer than one rebalance.
 */
class OnlineGroupMigrationIT {
    private static final int PARTITIONS = 6;
    private static final Duration REBALANCE_DEADLINE = Duration.ofSeconds(30);
    /** About one rebalance of these clients (2 s sessions, 200 ms heartbeats), with room for a loaded machine. */
    private static final long MAX_PAUSE_MS = 10_000;

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(GroupClients.brokerOverrides());

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"range", "cooperative-sticky"})
    void aClassicGroupUpgradedAndDowngradedMemberByMemberConsumesEveryRecordOnce(String assignor) throws Exception {
        String topic = uniqueTopic("migrate-" + assignor);
        String groupId = "migrate-" + assignor;
        createTopic(shared.admin(), topic, PARTITIONS);
        Map<String, Object> classic = GroupClients.memberConfig(groupId, assignor);
        Map<String, Object> consumer = GroupClients.memberConfig(groupId, "consumer");
        Map<String, Integer> consumed = new ConcurrentHashMap<>();
        Set<String> uncommitted = ConcurrentHashMap.newKeySet();
        List<Member> all = new ArrayList<>();
        List<Member> live = new ArrayList<>();
        try (SteadyProducer producer = new SteadyProducer(shared.broker(), topic, PARTITIONS);
                PauseMeter pauses = new PauseMeter(consumed)) {
            for (int i = 0; i < 3; i++) {
                live.add(new Member(shared.broker(), classic, topic, consumed, uncommitted));
            }
            all.addAll(live);
            awaitBalanced(live, "three classic members");
            assertThat(groupType(groupId)).isEqualTo(GroupType.CLASSIC);

            for (int i = 0; i < 3; i++) {
                replaceOldest(live, all, consumer, topic, consumed, uncommitted);
                awaitBalanced(live, "classic member " + i + " restarted with the consumer protocol");
                assertThat(groupType(groupId)).isEqualTo(GroupType.CONSUMER);
                assertThat(upgradedMembers(groupId))
                        .as("members on the consumer protocol, the others still classic")
                        .containsExactlyInAnyOrderElementsOf(upgradedExpected(i + 1));
            }
            for (int i = 0; i < 3; i++) {
                replaceOldest(live, all, classic, topic, consumed, uncommitted);
                awaitBalanced(live, "consumer member " + i + " restarted with the classic protocol");
            }
            assertThat(groupType(groupId))
                    .as("the last consumer-protocol member left: a classic group again")
                    .isEqualTo(GroupType.CLASSIC);

            long longestPauseMs = pauses.stop();
            int produced = producer.stop();
            await("every record consumed")
                    .atMost(REBALANCE_DEADLINE)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> consumed.size() >= produced);
            Member.stopAll(live, Member.Stop.LEAVE);
            for (Member m : all) {
                assertThat(m.failure()).as(m.name + " failed").isNull();
            }
            assertThat(produced).isGreaterThan(1000);
            for (int seq = 0; seq < produced; seq++) {
                assertThat(consumed).as("record %d", seq).containsKey(Integer.toString(seq));
            }
            List<String> duplicates = consumed.entrySet().stream()
                    .filter(e -> e.getValue() > 1)
                    .map(Map.Entry::getKey)
                    .toList();
            assertThat(duplicates)
                    .as("records read twice although their commit had succeeded")
                    .allMatch(uncommitted::contains);
            assertThat(longestPauseMs)
                    .as("longest time without a record consumed while producing")
                    .isLessThan(MAX_PAUSE_MS);
        } finally {
            Member.stopAll(all, Member.Stop.LEAVE);
        }
    }

    /** Stops the longest-running member (it leaves the group) and starts one with the other protocol's config. */
    private static void replaceOldest(
            List<Member> live,
            List<Member> all,
            Map<String, Object> config,
            String topic,
            Map<String, Integer> consumed,
            Set<String> uncommitted)
            throws InterruptedException {
        live.remove(0).stop(Member.Stop.LEAVE);
        Member next = new Member(shared.broker(), config, topic, consumed, uncommitted);
        live.add(next);
        all.add(next);
    }

    private static GroupType groupType(String groupId) throws Exception {
        for (GroupListing g : shared.admin().listGroups().all().get()) {
            if (g.groupId().equals(groupId)) {
                return g.type().orElseThrow();
            }
        }
        throw new AssertionError("group " + groupId + " is not listed");
    }

    /** For each member of the consumer group, whether it speaks the consumer protocol (ConsumerGroupDescribe v1). */
    private static List<Boolean> upgradedMembers(String groupId) throws Exception {
        ConsumerGroupDescription d = shared.admin()
                .describeConsumerGroups(List.of(groupId))
                .all()
                .get()
                .get(groupId);
        return d.members().stream().map(m -> m.upgraded().orElseThrow()).toList();
    }

    private static List<Boolean> upgradedExpected(int upgraded) {
        List<Boolean> out = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            out.add(i < upgraded);
        }
        return out;
    }

    private static void awaitBalanced(List<Member> members, String what) {
        await(what)
                .atMost(REBALANCE_DEADLINE)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> GroupClients.ownExactly(members, PARTITIONS)
                        && members.stream().allMatch(m -> m.owned.size() == PARTITIONS / members.size()));
    }

    /** Samples how many distinct records were consumed, every 20 ms, and keeps the longest stretch without growth. */
    private static final class PauseMeter implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicLong longestMs = new AtomicLong();
        private final Thread thread;

        PauseMeter(Map<String, Integer> consumed) {
            thread = new Thread(
                    () -> {
                        int last = consumed.size();
                        long since = System.nanoTime();
                        while (running.get()) {
                            await().pollDelay(Duration.ofMillis(20)).until(() -> true); // a sampling period
                            int now = consumed.size();
                            long t = System.nanoTime();
                            if (now != last) {
                                last = now;
                                since = t;
                            } else {
                                longestMs.accumulateAndGet((t - since) / 1_000_000, Math::max);
                            }
                        }
                    },
                    "pause-meter");
            thread.setDaemon(true);
            thread.start();
        }

        /** Stops sampling (call it while records are still produced) and returns the longest pause. */
        long stop() {
            running.set(false);
            return longestMs.get();
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join(5000);
        }
    }
}

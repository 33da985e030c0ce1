package io.varve.it.group;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.SharedBroker;
import io.varve.it.group.GroupClients.Member;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Consumer groups of kafka-clients 4.1 under churn and steady produce, with each protocol: the classic protocol with
 * the eager range and the cooperative-sticky assignors, and the KIP-848 consumer protocol (uniform assignor).
 */
class ConsumerGroupRebalanceIT {
    private static final int PARTITIONS = 12;
    private static final Duration REBALANCE_DEADLINE = Duration.ofSeconds(20);

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(GroupClients.brokerOverrides());

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"range", "cooperative-sticky", "consumer"})
    void everyRecordIsConsumedWhileMembersJoinLeaveCrashAndRejoin(String protocol) throws Exception {
        String topic = uniqueTopic("churn-" + protocol);
        createTopic(shared.admin(), topic, PARTITIONS);
        Map<String, Object> config = GroupClients.memberConfig("churn-" + protocol, protocol);
        Map<String, Integer> consumed = new ConcurrentHashMap<>();
        Set<String> uncommitted = ConcurrentHashMap.newKeySet();
        List<Member> all = new ArrayList<>();
        try (SteadyProducer producer = new SteadyProducer(shared.broker(), topic, PARTITIONS)) {
            List<Member> live = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                live.add(new Member(shared.broker(), config, topic, consumed, uncommitted));
            }
            all.addAll(live);
            awaitBalanced(live, "three members");

            Map<Member, Set<TopicPartition>> ownedBefore = new HashMap<>();
            int revokedBefore = 0;
            for (Member m : live) {
                ownedBefore.put(m, Set.copyOf(m.owned));
                revokedBefore += m.revokedPartitions.get();
            }
            Member fourth = new Member(shared.broker(), config, topic, consumed, uncommitted);
            all.add(fourth);
            live.add(fourth);
            awaitBalanced(live, "a fourth member joined");
            assertRevocations(protocol, ownedBefore, revokedBefore, fourth);

            Member leaving = live.remove(0);
            leaving.stop(Member.Stop.LEAVE);
            awaitBalanced(live, "a member left");

            Member crashing = live.remove(0);
            crashing.stop(Member.Stop.CRASH);
            awaitBalanced(live, "a member crashed: its session expired");

            Member rejoined = new Member(shared.broker(), config, topic, consumed, uncommitted);
            Member fifth = new Member(shared.broker(), config, topic, consumed, uncommitted);
            all.add(rejoined);
            all.add(fifth);
            live.add(rejoined);
            live.add(fifth);
            awaitBalanced(live, "two members (re)joined");

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
        } finally {
            Member.stopAll(all, Member.Stop.LEAVE);
        }
    }

    /**
     * When a fourth member joins three that own four partitions each, a sticky assignor moves three partitions and an
     * incremental rebalance (cooperative-sticky, KIP-848) revokes exactly those; an eager one (range) revokes all twelve.
     */
    private static void assertRevocations(
            String protocol, Map<Member, Set<TopicPartition>> ownedBefore, int revokedBefore, Member joined) {
        int moved = 0;
        int revoked = -revokedBefore;
        for (Map.Entry<Member, Set<TopicPartition>> e : ownedBefore.entrySet()) {
            Set<TopicPartition> kept = new java.util.HashSet<>(e.getValue());
            kept.retainAll(e.getKey().owned);
            moved += e.getValue().size() - kept.size();
            revoked += e.getKey().revokedPartitions.get();
        }
        assertThat(joined.owned).hasSize(3);
        if (protocol.equals("range")) {
            assertThat(revoked).as("an eager rebalance revokes every partition").isEqualTo(PARTITIONS);
        } else {
            assertThat(moved)
                    .as("a sticky assignment moves only what balance needs")
                    .isEqualTo(3);
            assertThat(revoked).as("partitions revoked equal partitions moved").isEqualTo(moved);
        }
    }

    private static void awaitBalanced(List<Member> members, String what) {
        await(what)
                .atMost(REBALANCE_DEADLINE)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    if (!GroupClients.ownExactly(members, PARTITIONS)) {
                        return false;
                    }
                    int min =
                            members.stream().mapToInt(m -> m.owned.size()).min().orElse(0);
                    int max =
                            members.stream().mapToInt(m -> m.owned.size()).max().orElse(0);
                    return max - min <= 1;
                });
    }
}

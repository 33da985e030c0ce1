package io.varve.it.group;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
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

    /** Produces sequence numbers round-robin over the partitions, about one per millisecond, until stopped. */
    private static final class SteadyProducer implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicInteger sent = new AtomicInteger();
        private final Thread thread;
        private volatile Throwable failure;

        SteadyProducer(String topic) {
            KafkaProducer<byte[], byte[]> producer = shared.broker().producer(Map.of("linger.ms", "5"));
            thread = new Thread(
                    () -> {
                        try (producer) {
                            int seq = 0;
                            while (running.get() && seq < 1_000_000) {
                                producer.send(new ProducerRecord<>(
                                        topic,
                                        seq % PARTITIONS,
                                        null,
                                        Integer.toString(seq).getBytes(UTF_8)));
                                seq++;
                                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // pacing, not synchronisation
                            }
                            producer.flush();
                            sent.set(seq);
                        } catch (Throwable t) {
                            failure = t;
                        }
                    },
                    "steady-producer");
            thread.start();
        }

        /** Stops producing and returns how many records were acknowledged (all of them: flush waits). */
        int stop() throws InterruptedException {
            running.set(false);
            thread.join(30_000);
            assertThat(failure).as("producer failure").isNull();
            return sent.get();
        }

        @Override
        public void close() throws InterruptedException {
            if (thread.isAlive()) {
                stop();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"range", "cooperative-sticky", "consumer"})
    void everyRecordIsConsumedWhileMembersJoinLeaveCrashAndRejoin(String protocol) throws Exception {
        String topic = uniqueTopic("churn-" + protocol);
        createTopic(shared.admin(), topic, PARTITIONS);
        Map<String, Object> config = GroupClients.memberConfig("churn-" + protocol, protocol);
        Map<String, Integer> consumed = new ConcurrentHashMap<>();
        Set<String> uncommitted = ConcurrentHashMap.newKeySet();
        List<Member> all = new ArrayList<>();
        try (SteadyProducer producer = new SteadyProducer(topic)) {
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

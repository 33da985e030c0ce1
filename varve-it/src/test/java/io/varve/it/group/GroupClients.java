package io.varve.it.group;

import io.varve.it.TestBroker;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/** Broker settings and consumer factories shared by the group integration tests: fast timeouts, no initial delay. */
final class GroupClients {
    /** Classic session timeout of the test consumers; the broker's minimum is lowered to allow it. */
    static final int CLASSIC_SESSION_MS = 2000;

    private GroupClients() {}

    /** Broker overrides: no initial rebalance delay, short session timeouts and heartbeats, a small offsets topic. */
    static Map<String, String> brokerOverrides() {
        Map<String, String> o = new HashMap<>();
        o.put("group.initial.rebalance.delay.ms", "0");
        o.put("group.min.session.timeout.ms", "500");
        o.put("group.consumer.session.timeout.ms", "2000");
        o.put("group.consumer.min.session.timeout.ms", "500");
        o.put("group.consumer.heartbeat.interval.ms", "200");
        o.put("group.consumer.min.heartbeat.interval.ms", "100");
        o.put("offsets.topic.num.partitions", "8");
        return o;
    }

    /**
     * Consumer settings for a group member. {@code protocol} is a classic assignor ("range", "cooperative-sticky")
     * or "consumer" for the KIP-848 protocol (server-side uniform assignor).
     */
    static Map<String, Object> memberConfig(String groupId, String protocol) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        c.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "15000");
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "200");
        if (protocol.equals("consumer")) {
            c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        } else {
            c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
            c.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Integer.toString(CLASSIC_SESSION_MS));
            c.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "200");
            c.put(
                    ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                    protocol.equals("range")
                            ? "org.apache.kafka.clients.consumer.RangeAssignor"
                            : "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
        }
        return c;
    }

    /**
     * A consumer polling on its own thread: records each value it reads, commits synchronously after processing
     * every batch, and tracks the partitions it owns through its rebalance listener. Values of a batch whose commit
     * failed may legitimately be read again by the next owner (the at-least-once window): they are reported.
     */
    static final class Member implements AutoCloseable {
        enum Stop {
            LEAVE,
            CRASH
        }

        private static final AtomicInteger IDS = new AtomicInteger();

        final String name;
        final Set<TopicPartition> owned = ConcurrentHashMap.newKeySet();
        final AtomicInteger revokedPartitions = new AtomicInteger();
        final AtomicInteger rebalanceCallbacks = new AtomicInteger();
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final Map<String, Integer> consumed;
        private final Set<String> uncommitted;
        private final Thread thread;
        private volatile Stop stop;
        private volatile Throwable failure;

        Member(
                TestBroker broker,
                Map<String, Object> config,
                String topic,
                Map<String, Integer> consumed,
                Set<String> uncommitted) {
            this.name = "member-" + IDS.incrementAndGet();
            this.consumer = broker.consumer(config);
            this.consumed = consumed;
            this.uncommitted = uncommitted;
            this.thread = new Thread(() -> run(topic), name);
            thread.setDaemon(true);
            thread.start();
        }

        private void run(String topic) {
            try {
                consumer.subscribe(List.of(topic), new Listener());
                while (stop == null) {
                    List<String> batch = new java.util.ArrayList<>();
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        String value = new String(r.value(), java.nio.charset.StandardCharsets.UTF_8);
                        consumed.merge(value, 1, Integer::sum);
                        batch.add(value);
                    }
                    if (!batch.isEmpty()) {
                        try {
                            consumer.commitSync(Duration.ofSeconds(10));
                        } catch (RuntimeException e) {
                            uncommitted.addAll(batch);
                        }
                    }
                }
            } catch (Throwable t) {
                failure = t;
            } finally {
                if (stop == Stop.CRASH) {
                    consumer.close(
                            CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                                    .withTimeout(Duration.ofSeconds(5)));
                } else {
                    consumer.close(Duration.ofSeconds(10));
                }
            }
        }

        private final class Listener implements ConsumerRebalanceListener {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                if (!partitions.isEmpty()) {
                    rebalanceCallbacks.incrementAndGet();
                }
                revokedPartitions.addAndGet(partitions.size());
                owned.removeAll(partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                if (!partitions.isEmpty()) {
                    rebalanceCallbacks.incrementAndGet();
                }
                owned.addAll(partitions);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                owned.removeAll(partitions);
            }
        }

        /** Stops polling and leaves the group (LEAVE) or disappears without a word (CRASH); waits for the thread. */
        void stop(Stop how) throws InterruptedException {
            stop = how; // seen after the current poll (at most 100 ms) and its commit
            thread.join(20_000);
            if (thread.isAlive()) {
                throw new AssertionError(name + " did not stop");
            }
        }

        /** Stops several members at once (in parallel: each leave may start a rebalance for the others). */
        static void stopAll(List<Member> members, Stop how) throws InterruptedException {
            for (Member m : members) {
                if (m.stop == null) {
                    m.stop = how;
                }
            }
            for (Member m : members) {
                m.thread.join(20_000);
                if (m.thread.isAlive()) {
                    throw new AssertionError(m.name + " did not stop");
                }
            }
        }

        Throwable failure() {
            return failure;
        }

        @Override
        public void close() throws InterruptedException {
            if (thread.isAlive()) {
                stop(Stop.LEAVE);
            }
        }
    }

    /** True when the members together own every partition of the topic exactly once. */
    static boolean ownExactly(List<Member> members, int partitions) {
        int total = 0;
        Set<TopicPartition> union = new java.util.HashSet<>();
        for (Member m : members) {
            Set<TopicPartition> owned = Set.copyOf(m.owned);
            total += owned.size();
            union.addAll(owned);
        }
        return total == partitions && union.size() == partitions;
    }
}

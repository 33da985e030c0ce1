package io.varve.it.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.TestBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients 4.4's {@link KafkaShareConsumer} against one Varve node: records of one partition shared by several
 * consumers, acquisition locks, acknowledgement kinds, the delivery count limit and a killed consumer. Share groups
 * start at the partition's end (share.auto.offset.reset=latest): each test first has its consumers receive a warm-up
 * record, then produces the records it checks.
 */
class ShareConsumerIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String WARM = "warm";

    @TempDir
    static Path dataDir;

    static TestBroker broker;
    static KafkaProducer<byte[], byte[]> producer;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(dataDir, ShareClients.brokerOverrides());
        // one batch per test step: a share fetch acquires whole batches, so one poll returns all of a step's records
        producer = broker.producer(Map.of("linger.ms", 100));
    }

    @AfterAll
    static void stop() {
        if (producer != null) {
            producer.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void consumersSharingOnePartitionEachGetDistinctRecords() throws Exception {
        String topic = createTopic("shared-one");
        int records = 300;
        Map<String, List<Integer>> byValue = new ConcurrentHashMap<>();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int consumerIndex = i;
            Thread t = new Thread(() -> {
                try (KafkaShareConsumer<String, String> c =
                        ShareClients.consumer(broker.bootstrap(), "g-shared", "implicit", 10)) {
                    c.subscribe(List.of(topic));
                    while (running.get()) {
                        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                            byValue.computeIfAbsent(r.value(), v -> new CopyOnWriteArrayList<>())
                                    .add(consumerIndex);
                        }
                    }
                }
            });
            t.start();
            threads.add(t);
        }
        try {
            warmUp(topic, () -> byValue.containsKey(WARM));
            for (int i = 0; i < records; i++) {
                send(topic, "r" + i);
            }
            producer.flush();
            awaitCondition(() -> countPrefixed(byValue, "r") == records);
        } finally {
            running.set(false);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
        Set<Integer> receivers = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < records; i++) {
            List<Integer> got = byValue.get("r" + i);
            assertThat(got).as("consumers that got r%d", i).hasSize(1);
            receivers.add(got.get(0));
        }
        assertThat(receivers).as("consumers that got records").hasSizeGreaterThan(1);
    }

    @Test
    void anUnacknowledgedRecordComesBackAfterItsLockExpires() throws Exception {
        String topic = createTopic("lock-expiry");
        try (KafkaShareConsumer<String, String> a = explicitConsumer("g-lock", topic)) {
            warmUp(topic, a);
            for (int i = 0; i < 5; i++) {
                send(topic, "r" + i);
            }
            producer.flush();
            List<ConsumerRecord<String, String>> held = pollUntil(a, got -> got.size() >= 5, r -> true);
            long heldAtNanos = System.nanoTime();
            assertThat(held).extracting(ConsumerRecord::value).containsExactly("r0", "r1", "r2", "r3", "r4");
            assertThat(held.get(0).deliveryCount()).isEqualTo(Optional.of((short) 1));
            // a stops polling, its records stay acquired until their locks expire; b gets them then
            try (KafkaShareConsumer<String, String> b = explicitConsumer("g-lock", topic)) {
                List<ConsumerRecord<String, String>> again = pollUntil(b, got -> got.size() >= 5, r -> true);
                long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - heldAtNanos);
                assertThat(again).extracting(ConsumerRecord::value).containsExactly("r0", "r1", "r2", "r3", "r4");
                assertThat(again).allSatisfy(r -> assertThat(r.deliveryCount()).isEqualTo(Optional.of((short) 2)));
                assertThat(waitedMs).isGreaterThanOrEqualTo(ShareClients.LOCK_MS - 1000);
            }
        }
    }

    @Test
    void aReleasedRecordComesBackAndARejectedOneDoesNot() throws Exception {
        String topic = createTopic("release-reject");
        try (KafkaShareConsumer<String, String> c = explicitConsumer("g-ack", topic)) {
            warmUp(topic, c);
            for (String v : List.of("release-me", "reject-me", "accept-me")) {
                send(topic, v);
            }
            producer.flush();
            List<ConsumerRecord<String, String>> first =
                    pollUntil(c, got -> got.size() >= 3, r -> true, this::acknowledgeByName);
            assertThat(first).extracting(ConsumerRecord::value).containsExactly("release-me", "reject-me", "accept-me");
            send(topic, "after");
            producer.flush();
            List<ConsumerRecord<String, String>> later = pollUntil(
                    c,
                    got -> got.stream().anyMatch(r -> r.value().equals("after")),
                    r -> true,
                    (consumer, r) -> consumer.acknowledge(r, AcknowledgeType.ACCEPT));
            assertThat(later).extracting(ConsumerRecord::value).containsExactly("release-me", "after");
            assertThat(later.get(0).deliveryCount()).isEqualTo(Optional.of((short) 2));
        }
    }

    @Test
    void theDeliveryCountLimitArchivesARecord() throws Exception {
        String topic = createTopic("delivery-limit");
        try (KafkaShareConsumer<String, String> c = explicitConsumer("g-limit", topic)) {
            warmUp(topic, c);
            send(topic, "poison");
            producer.flush();
            List<Short> deliveries = new ArrayList<>();
            // the broker's group.share.delivery.count.limit is 3: released three times, then archived
            while (deliveries.size() < 3) {
                for (ConsumerRecord<String, String> r : pollUntil(
                        c,
                        got -> !got.isEmpty(),
                        r -> true,
                        (consumer, r) -> consumer.acknowledge(r, AcknowledgeType.RELEASE))) {
                    assertThat(r.value()).isEqualTo("poison");
                    deliveries.add(r.deliveryCount().orElseThrow());
                }
            }
            assertThat(deliveries).containsExactly((short) 1, (short) 2, (short) 3);
            send(topic, "next");
            producer.flush();
            List<ConsumerRecord<String, String>> after = pollUntil(
                    c,
                    got -> got.stream().anyMatch(r -> r.value().equals("next")),
                    r -> true,
                    (consumer, r) -> consumer.acknowledge(r, AcknowledgeType.ACCEPT));
            assertThat(after).extracting(ConsumerRecord::value).containsExactly("next");
        }
    }

    @Test
    void aKilledConsumersRecordsAreRedelivered() throws Exception {
        String topic = createTopic("killed");
        try (KafkaShareConsumer<String, String> starter = explicitConsumer("g-killed", topic)) {
            warmUp(topic, starter); // the group starts on the partition here; its next records are the killed one's
        }
        for (int i = 0; i < 3; i++) {
            send(topic, "r" + i);
        }
        producer.flush();
        Process victim = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx128m",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        System.getProperty("java.class.path"),
                        ShareConsumerProcess.class.getName(),
                        broker.bootstrap(),
                        topic,
                        "g-killed")
                .redirectErrorStream(true)
                .redirectOutput(dataDir.resolve("victim.out").toFile())
                .start();
        try {
            awaitCondition(() -> java.nio.file.Files.exists(dataDir.resolve("victim.out"))
                    && java.nio.file.Files.readString(dataDir.resolve("victim.out"))
                            .contains("holding"));
            String out = java.nio.file.Files.readString(dataDir.resolve("victim.out"));
            assertThat(out).contains("got r0");
        } finally {
            victim.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        try (KafkaShareConsumer<String, String> heir = explicitConsumer("g-killed", topic)) {
            List<ConsumerRecord<String, String>> got = pollUntil(heir, g -> g.size() >= 3, r -> true);
            assertThat(got).extracting(ConsumerRecord::value).containsExactly("r0", "r1", "r2");
            assertThat(got.get(0).deliveryCount()).isEqualTo(Optional.of((short) 2));
        }
    }

    // ---------------------------------------------------------------- helpers

    private interface Acknowledger {
        void acknowledge(KafkaShareConsumer<String, String> consumer, ConsumerRecord<String, String> record);
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private void acknowledgeByName(KafkaShareConsumer<String, String> c, ConsumerRecord<String, String> r) {
        AcknowledgeType type =
                switch (r.value()) {
                    case "release-me" -> AcknowledgeType.RELEASE;
                    case "reject-me" -> AcknowledgeType.REJECT;
                    default -> AcknowledgeType.ACCEPT;
                };
        c.acknowledge(r, type);
    }

    private static KafkaShareConsumer<String, String> explicitConsumer(String group, String topic) {
        KafkaShareConsumer<String, String> c = ShareClients.consumer(broker.bootstrap(), group, "explicit", 50);
        c.subscribe(List.of(topic));
        return c;
    }

    /** Polls {@code c}, leaving records held (unacknowledged), until the records so far satisfy {@code done}. */
    private static List<ConsumerRecord<String, String>> pollUntil(
            KafkaShareConsumer<String, String> c,
            Predicate<List<ConsumerRecord<String, String>>> done,
            Predicate<ConsumerRecord<String, String>> keep) {
        return pollUntil(c, done, keep, null);
    }

    /**
     * Polls {@code c} until the records kept so far satisfy {@code done}; warm-up records are accepted and skipped.
     * With an {@code acknowledger} every kept record is acknowledged and committed after its poll.
     */
    private static List<ConsumerRecord<String, String>> pollUntil(
            KafkaShareConsumer<String, String> c,
            Predicate<List<ConsumerRecord<String, String>>> done,
            Predicate<ConsumerRecord<String, String>> keep,
            Acknowledger acknowledger) {
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!done.test(got)) {
            assertThat(System.nanoTime()).as("records so far: %s", got).isLessThan(deadline);
            // explicit acknowledgement: a consumer holding unacknowledged records may not poll again
            assertThat(acknowledger == null && !got.isEmpty())
                    .as("records held after one poll: %s", got)
                    .isFalse();
            boolean acked = false;
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                if (r.value().equals(WARM)) {
                    c.acknowledge(r, AcknowledgeType.ACCEPT);
                    acked = true;
                } else if (keep.test(r)) {
                    got.add(r);
                    if (acknowledger != null) {
                        acknowledger.acknowledge(c, r);
                        acked = true;
                    }
                }
            }
            if (acked) {
                c.commitSync();
            }
        }
        return got;
    }

    /** Sends warm-up records until {@code c} receives one (then the group has started on the partition). */
    private static void warmUp(String topic, KafkaShareConsumer<String, String> c) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            assertThat(System.nanoTime())
                    .as("a warm-up record reached the consumer")
                    .isLessThan(deadline);
            send(topic, WARM);
            producer.flush();
            boolean received = false;
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(300))) {
                c.acknowledge(r, AcknowledgeType.ACCEPT);
                received = true;
            }
            if (received) {
                c.commitSync();
                return;
            }
        }
    }

    /** Sends warm-up records until {@code started} holds (consumers polling in other threads). */
    private static void warmUp(String topic, Check started) {
        Awaitility.await("a warm-up record reached a consumer")
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(300))
                .until(() -> {
                    if (started.holds()) {
                        return true;
                    }
                    send(topic, WARM);
                    producer.flush();
                    return false;
                });
    }

    private static void awaitCondition(Check check) {
        Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(check::holds);
    }

    private static long countPrefixed(Map<String, List<Integer>> byValue, String prefix) {
        return byValue.keySet().stream().filter(v -> v.startsWith(prefix)).count();
    }

    private static void send(String topic, String value) {
        producer.send(new ProducerRecord<>(topic, 0, null, value.getBytes(StandardCharsets.UTF_8)));
    }

    private static String createTopic(String name) throws Exception {
        try (Admin admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        return name;
    }
}

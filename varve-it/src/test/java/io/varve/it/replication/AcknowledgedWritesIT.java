package io.varve.it.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Three combined nodes, topics of three replicas and {@code min.insync.replicas=2}: what an idempotent {@code
 * acks=all} producer was told is written survives SIGKILL of the partition's leader, exactly once and in order, and
 * the restarted broker catches up and rejoins the ISR; an ISR of one refuses acks=all and still takes acks=1.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AcknowledgedWritesIT {
    private static final Duration BOUND = Duration.ofSeconds(60);

    private static ClusterProcesses cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = ClusterProcesses.combined(3)
                // a killed node is fenced at once (its heartbeat connection closes); the session only bounds the
                // pause of test 3, which must not fence the paused node on a loaded machine (it would leave the ISR
                // and the partition offline once the old leader is killed: not what the test is about)
                .override("broker.session.timeout.ms", "10000")
                .override("broker.heartbeat.interval.ms", "500")
                // a loaded machine can stall a node for seconds: an ISR shrink is not what these tests are about
                .override("replica.lag.time.max.ms", "10000")
                .override("replica.fetch.wait.max.ms", "200")
                .override("replica.fetch.backoff.ms", "200")
                .start(ClusterProcesses.workDir("AcknowledgedWritesIT"));
        cluster.awaitLeader(BOUND);
        cluster.awaitBrokers(3, BOUND);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void everyAcknowledgedRecordSurvivesSigkillOfTheLeaderExactlyOnceInOrderAndTheLeaderRejoinsTheIsr()
            throws Exception {
        String topic = "replicated";
        ReplicatedTopic replicated = ReplicatedTopic.create(
                cluster, new NewTopic(topic, 1, (short) 3).configs(Map.of("min.insync.replicas", "2")));

        List<String> acknowledged = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicReference<Exception> producerFailure = new AtomicReference<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread producer = new Thread(() -> produce(topic, acknowledged, producerFailure, producing), "it-producer");
        producer.start();
        try {
            await("200 records acknowledged").atMost(BOUND).until(() -> acknowledged.size() >= 200);
            ClusterNode leader = cluster.node(replicated.partition(0).leader().id());
            leader.kill();
            int beforeFailover = acknowledged.size();
            await("200 more records acknowledged after the leader was killed")
                    .atMost(BOUND)
                    .until(() -> acknowledged.size() >= beforeFailover + 200);
            assertThat(replicated.partition(0).leader().id()).isNotEqualTo(leader.id());
            leader.start();
            await("broker " + leader.id() + " back in the ISR")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions()
                    .until(() -> replicated.partition(0).isr().stream()
                            .map(Node::id)
                            .collect(Collectors.toSet())
                            .contains(leader.id()));
            int afterRejoin = acknowledged.size();
            await("100 more records acknowledged with the restarted broker in the ISR")
                    .atMost(BOUND)
                    .until(() -> acknowledged.size() >= afterRejoin + 100);
        } finally {
            producing.set(false);
            producer.join(TimeUnit.SECONDS.toMillis(90));
        }
        assertThat(producerFailure.get()).isNull();

        for (String isolation : List.of("read_committed", "read_uncommitted")) {
            List<String> read = readAll(topic, isolation);
            assertThat(new HashSet<>(read))
                    .as("no duplicates (" + isolation + ")")
                    .hasSize(read.size());
            assertThat(read).as("every acknowledged record (" + isolation + ")").containsAll(acknowledged);
            assertThat(read)
                    .as("in the order sent (" + isolation + ")")
                    .isSortedAccordingTo(java.util.Comparator.comparingInt(AcknowledgedWritesIT::sequence));
        }
    }

    @Test
    @Order(2)
    void anIsrOfOneRefusesAcksAllWithNotEnoughReplicasAndAcceptsAcksOne() throws Exception {
        String topic = "two-replicas";
        List<Integer> replicas = List.of(1, 2);
        ReplicatedTopic replicated = ReplicatedTopic.create(
                cluster, new NewTopic(topic, Map.of(0, replicas)).configs(Map.of("min.insync.replicas", "2")));
        int leaderId = replicated.partition(0).leader().id();
        ClusterNode follower = cluster.node(replicas.get(0) == leaderId ? replicas.get(1) : replicas.get(0));
        follower.kill();
        try {
            await("the ISR shrunk to the leader")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions()
                    .until(() -> replicated.partition(0).isr().size() == 1);

            try (KafkaProducer<String, String> all = producer("all", false, 0)) {
                Future<RecordMetadata> refused = all.send(new ProducerRecord<>(topic, "refused"));
                assertThat(causeOf(refused)).isInstanceOf(NotEnoughReplicasException.class);
            }
            try (KafkaProducer<String, String> one = producer("1", false, 0)) {
                RecordMetadata accepted =
                        one.send(new ProducerRecord<>(topic, "accepted")).get(30, TimeUnit.SECONDS);
                assertThat(accepted.offset()).isGreaterThanOrEqualTo(0);
            }
        } finally {
            follower.start();
        }
    }

    @Test
    @Order(3)
    void aFormerLeaderTruncatesTheRecordsOnlyItHadAndConvergesOnTheNewLeadersLog() throws Exception {
        String topic = "diverging";
        // the earlier tests restarted nodes: start from a settled quorum and three live brokers
        cluster.awaitLeader(BOUND);
        cluster.awaitBrokers(3, BOUND);
        ReplicatedTopic replicated = ReplicatedTopic.create(
                cluster, new NewTopic(topic, Map.of(0, List.of(3, 1))).configs(Map.of("min.insync.replicas", "1")));
        ClusterNode oldLeader = cluster.node(replicated.partition(0).leader().id());
        ClusterNode newLeader = cluster.node(oldLeader.id() == 3 ? 1 : 3);
        send(topic, "all", "kept", 10);

        // records only the old leader gets: its follower is paused, acks=1 does not wait for it
        try (KafkaProducer<String, String> toOldLeader = producer("1", false, 5, oldLeader.bootstrap())) {
            toOldLeader.partitionsFor(topic); // metadata first, so the pause below costs no round trip
            newLeader.pause();
            List<Future<RecordMetadata>> lost = new ArrayList<>();
            for (int i = 0; i < 5; i++) { // sent together: the pause lasts one round trip, not five
                lost.add(toOldLeader.send(new ProducerRecord<>(topic, "lost-" + i)));
            }
            for (Future<RecordMetadata> f : lost) {
                f.get(5, TimeUnit.SECONDS);
            }
        }
        oldLeader.kill();
        newLeader.resume();
        await(topic + " led by " + newLeader.id())
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> replicated.partition(0).leader().id() == newLeader.id());
        send(topic, "1", "after", 5);

        oldLeader.start();
        await("broker " + oldLeader.id() + " back in the ISR of " + topic)
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> replicated.partition(0).isr().size() == 2);
        // what the new leader holds: the committed records, maybe the first of the old leader's own ones (fetched
        // before the pause took hold), then the records written after the change
        List<String> onNewLeader = readAll(topic, "read_uncommitted");
        assertThat(onNewLeader.subList(0, 10)).isEqualTo(numbered("kept", 10));
        assertThat(onNewLeader.subList(onNewLeader.size() - 5, onNewLeader.size()))
                .isEqualTo(numbered("after", 5));
        // the former leader now leads on the log it truncated and caught up: the same records
        newLeader.kill();
        try {
            await(topic + " led by " + oldLeader.id() + " again")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions()
                    .until(() -> replicated.partition(0).leader().id() == oldLeader.id());
            assertThat(readAll(topic, "read_uncommitted")).isEqualTo(onNewLeader);
        } finally {
            newLeader.start();
        }
    }

    private static List<String> numbered(String prefix, int count) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            values.add(prefix + "-" + i);
        }
        return values;
    }

    /** Sends {@code count} records {@code prefix-i} one after another, each acknowledged before the next. */
    private static void send(String topic, String acks, String prefix, int count) throws Exception {
        try (KafkaProducer<String, String> producer = producer(acks, false)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, prefix + "-" + i)).get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static Throwable causeOf(Future<?> future) throws Exception {
        try {
            future.get(30, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static void produce(
            String topic, List<String> acknowledged, AtomicReference<Exception> failure, AtomicBoolean producing) {
        try (KafkaProducer<String, String> producer = producer("all", true)) {
            int next = 0;
            List<Future<RecordMetadata>> window = new ArrayList<>();
            while (producing.get()) {
                String value = "record-" + next++;
                window.add(producer.send(new ProducerRecord<>(topic, value), (metadata, e) -> {
                    if (e == null) {
                        acknowledged.add(value);
                    }
                }));
                if (window.size() >= 20) {
                    for (Future<RecordMetadata> f : window) {
                        try {
                            f.get(120, TimeUnit.SECONDS);
                        } catch (ExecutionException e) {
                            // not acknowledged: not recorded, and allowed to be absent
                        }
                    }
                    window.clear();
                }
            }
            producer.flush();
        } catch (Exception e) {
            failure.set(e);
        }
    }

    private static KafkaProducer<String, String> producer(String acks, boolean idempotent) {
        return producer(acks, idempotent, 5);
    }

    private static KafkaProducer<String, String> producer(String acks, boolean idempotent, int retries) {
        return producer(acks, idempotent, retries, bootstrap());
    }

    /** A producer; a non-idempotent one retries {@code retries} times (0: the first error is the answer). */
    private static KafkaProducer<String, String> producer(
            String acks, boolean idempotent, int retries, String bootstrap) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, acks);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, idempotent);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 100);
        config.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        if (idempotent) {
            config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        } else {
            config.put(ProducerConfig.RETRIES_CONFIG, retries);
            config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
            config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        }
        return new KafkaProducer<>(config);
    }

    private static List<String> readAll(String topic, String isolation) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        TopicPartition tp = new TopicPartition(topic, 0);
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            await("read to offset " + end + " (" + isolation + ")")
                    .atMost(BOUND)
                    .until(() -> {
                        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                            read.add(r.value());
                        }
                        return consumer.position(tp) >= end;
                    });
        }
        return read;
    }

    private static int sequence(String value) {
        return Integer.parseInt(value.substring(value.indexOf('-') + 1));
    }

    private static String bootstrap() {
        return ReplicatedTopic.bootstrap(cluster.brokers());
    }
}

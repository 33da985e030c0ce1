package io.varve.it.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.cluster.ClusterProcesses;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * KIP-1166 (Fetch v18) on three real nodes: followers say which high watermark they know, so a follower whose fetch
 * waits on the leader learns a high-watermark move at once instead of after {@code replica.fetch.wait.max.ms}. Seen by
 * consumers reading from the followers (KIP-392, racks b and c): with the wait set to 20 s, a committed record reaches
 * both within a few seconds. Before Varve's followers sent their high watermark, the follower whose fetch did not
 * complete the commit learned it only when its waiting fetch expired, 20 s later.
 */
class FollowerHighWatermarkIT {
    private static final Duration BOUND = Duration.ofSeconds(90);
    private static final String TOPIC = "hw-moves";
    private static final int WAIT_MAX_MS = 20_000;

    private ClusterProcesses cluster;

    @BeforeEach
    void start() throws Exception {
        ClusterProcesses.Builder builder = ClusterProcesses.combined(3)
                .override("replica.selector.class", "org.apache.kafka.common.replica.RackAwareReplicaSelector")
                .override("replica.fetch.wait.max.ms", Integer.toString(WAIT_MAX_MS))
                .override("replica.lag.time.max.ms", "60000")
                .override("broker.heartbeat.interval.ms", "500");
        String[] racks = {"a", "b", "c"};
        for (int id = 1; id <= 3; id++) {
            builder.overrideFor(id, "broker.rack", racks[id - 1]);
        }
        cluster = builder.start(ClusterProcesses.workDir("FollowerHighWatermarkIT"));
        cluster.awaitLeader(BOUND);
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aCommittedRecordReachesConsumersOfBothFollowersLongBeforeTheReplicaFetchWaitEnds() throws Exception {
        cluster.awaitBrokers(3, BOUND);
        ReplicatedTopic topic = ReplicatedTopic.create(cluster, new NewTopic(TOPIC, Map.of(0, List.of(1, 2, 3))));
        topic.awaitPreferredLeaders(); // broker 1, in rack a

        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.node(1).bootstrap());
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp);
                KafkaConsumer<String, String> inB = consumer("b");
                KafkaConsumer<String, String> inC = consumer("c")) {
            for (KafkaConsumer<String, String> c : List.of(inB, inC)) {
                c.assign(List.of(tp));
                c.seekToBeginning(List.of(tp));
            }
            producer.send(new ProducerRecord<>(TOPIC, 0, null, "warm-up")).get();
            awaitValue(inB, "warm-up", BOUND);
            awaitValue(inC, "warm-up", BOUND);

            for (int round = 0; round < 3; round++) {
                String value = "committed-" + round;
                producer.send(new ProducerRecord<>(TOPIC, 0, null, value)).get();
                long ackedNanos = System.nanoTime();
                Duration fast = Duration.ofMillis(WAIT_MAX_MS / 4);
                awaitValue(inB, value, fast);
                awaitValue(inC, value, fast);
                long ms = (System.nanoTime() - ackedNanos) / 1_000_000;
                System.out.printf(
                        "round %d: both follower-reading consumers had the record %d ms after its ack%n", round, ms);
                assertThat(ms).isLessThan(WAIT_MAX_MS / 4);
            }
        }
    }

    private KafkaConsumer<String, String> consumer(String rack) {
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.node(1).bootstrap());
        cp.put(ConsumerConfig.CLIENT_RACK_CONFIG, rack);
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(cp);
    }

    private static void awaitValue(KafkaConsumer<String, String> consumer, String value, Duration bound) {
        await("record " + value + " read")
                .atMost(bound)
                .pollInterval(Duration.ZERO)
                .until(() -> {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        if (r.value().equals(value)) {
                            return true;
                        }
                    }
                    return false;
                });
    }
}

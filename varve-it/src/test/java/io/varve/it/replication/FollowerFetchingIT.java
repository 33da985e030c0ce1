package io.varve.it.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.ServerProcess;
import io.varve.it.cluster.ClusterProcesses;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * KIP-392 on three real nodes in racks a, b and c with Kafka's {@code RackAwareReplicaSelector} named: a
 * kafka-clients consumer with {@code client.rack=b} reads every record of a partition led in rack a, and the record
 * bytes it reads are sent by the rack-b follower (its per-topic bytes-out metric), none by the leader.
 */
class FollowerFetchingIT {
    private static final Duration BOUND = Duration.ofSeconds(90);
    private static final String TOPIC = "racked";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern BYTES_OUT = Pattern.compile(
            "^kafka_server_brokertopicmetrics_bytesout(?:_total)?\\{[^}]*topic=\"" + TOPIC + "\"[^}]*\\} (\\S+)$",
            Pattern.MULTILINE);

    private ClusterProcesses cluster;
    private final Map<Integer, Integer> httpPorts = new HashMap<>();

    @BeforeEach
    void start() throws Exception {
        ClusterProcesses.Builder builder = ClusterProcesses.combined(3)
                .override("replica.selector.class", "org.apache.kafka.common.replica.RackAwareReplicaSelector")
                .override("replica.fetch.wait.max.ms", "200")
                .override("broker.heartbeat.interval.ms", "500");
        String[] racks = {"a", "b", "c"};
        for (int id = 1; id <= 3; id++) {
            int port = ServerProcess.freePort();
            httpPorts.put(id, port);
            builder.overrideFor(id, "broker.rack", racks[id - 1])
                    .overrideFor(id, "varve.http.listeners", "http://127.0.0.1:" + port);
        }
        cluster = builder.start(ClusterProcesses.workDir("FollowerFetchingIT"));
        cluster.awaitLeader(BOUND);
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aConsumerInRackBReadsEveryRecordFromTheRackBFollowerNotFromTheLeader() throws Exception {
        cluster.awaitBrokers(3, BOUND);
        ReplicatedTopic topic = ReplicatedTopic.create(cluster, new NewTopic(TOPIC, Map.of(0, List.of(1, 2, 3))));
        topic.awaitPreferredLeaders(); // broker 1, in rack a

        List<String> written = new ArrayList<>();
        long valueBytes = 0;
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.node(1).bootstrap());
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
            for (int i = 0; i < 2000; i++) {
                String value = "record-" + i + "-" + "x".repeat(100);
                written.add(value);
                valueBytes += value.length();
                producer.send(new ProducerRecord<>(TOPIC, 0, null, value));
            }
            producer.flush();
        }

        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.node(1).bootstrap());
        cp.put(ConsumerConfig.CLIENT_RACK_CONFIG, "b");
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "200");
        cp.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "16384"); // many fetches, not one
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            await("every record read").atMost(BOUND).pollInterval(Duration.ZERO).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    read.add(r.value());
                }
                return read.size() >= written.size();
            });
        }

        assertThat(read).containsExactlyElementsOf(written);
        assertThat(bytesOut(2)).as("record bytes sent by the rack-b follower").isGreaterThanOrEqualTo(valueBytes);
        assertThat(bytesOut(1)).as("record bytes sent by the leader (rack a)").isZero();
        assertThat(bytesOut(3)).as("record bytes sent by the rack-c follower").isZero();
    }

    /** The per-topic bytes-out counter of node {@code id} for the topic (0 when it has none). */
    private long bytesOut(int id) throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPorts.get(id) + "/metrics"))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        Matcher m = BYTES_OUT.matcher(r.body());
        return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
    }
}

package io.varve.it.fetchsession;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.FetchFrameMeter;
import io.varve.it.FetchFrameMeter.Exchange;
import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Three combined nodes replicating 2,000 partitions of three replicas (each follower fetches about 1,333 of them
 * from two leaders), every node's listener behind a frame-reading proxy so that the followers' Fetch traffic is
 * measured: with {@code min.insync.replicas=3} every acknowledged record is on all three replicas, and once the
 * followers have caught up their fetches are incremental and carry tens of bytes each way.
 */
class FollowerFetchSessionIT {
    private static final int PARTITIONS = 2_000;
    private static final Duration BOUND = Duration.ofSeconds(180);
    private static final int IDLE_EXCHANGE_MAX_BYTES = 200;

    @Test
    void followersOf2000PartitionsReplicateEveryAcknowledgedRecordAndIdleIncrementalFetchesCarryAlmostNothing()
            throws Exception {
        Map<Integer, FetchFrameMeter> meters = new HashMap<>();
        ClusterProcesses.Builder builder = ClusterProcesses.combined(3)
                // a loaded machine can stall a node for seconds: an ISR shrink is not what this test is about
                .override("replica.lag.time.max.ms", "30000")
                .override("replica.fetch.wait.max.ms", "200")
                .override("replica.fetch.backoff.ms", "200")
                .override("varve.http.listeners", "")
                .override("varve.schema.registry.listeners", "");
        for (int id = 1; id <= 3; id++) {
            FetchFrameMeter meter = new FetchFrameMeter();
            meters.put(id, meter);
            builder.overrideFor(id, "advertised.listeners", "PLAINTEXT://127.0.0.1:" + meter.port());
        }
        try (ClusterProcesses cluster = builder.start(ClusterProcesses.workDir("FollowerFetchSessionIT"))) {
            for (ClusterNode node : cluster.nodes()) {
                meters.get(node.id()).start(node.clientPort());
            }
            cluster.awaitLeader(BOUND);
            Admin admin = cluster.admin(
                    cluster.node(1),
                    Map.of(
                            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 120_000,
                            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 180_000));
            cluster.awaitBrokers(3, BOUND);
            String topic = "replicated-sessions";
            admin.createTopics(List.of(
                            new NewTopic(topic, PARTITIONS, (short) 3).configs(Map.of("min.insync.replicas", "3"))))
                    .all()
                    .get(180, TimeUnit.SECONDS);
            await("every partition's ISR holds its three replicas")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofSeconds(1))
                    .ignoreExceptions()
                    .until(() -> {
                        TopicDescription d = admin.describeTopics(List.of(topic))
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS)
                                .get(topic);
                        return d.partitions().stream().allMatch(p -> p.isr().size() == 3);
                    });

            int acknowledged = produceToEveryPartition(cluster, topic);
            assertThat(acknowledged).isEqualTo(2 * PARTITIONS);

            List<Exchange> busy = new ArrayList<>();
            meters.values().forEach(m -> busy.addAll(m.exchanges()));
            assertThat(busy).anySatisfy(e -> assertThat(e.incremental()).isTrue());
            assertThat(busy).allSatisfy(e -> assertThat(e.responseError()).isZero());

            // the fetches that carried the records and the positions after them pass; then the followers idle
            meters.values().forEach(FetchFrameMeter::clear);
            awaitExchanges(meters, 4);
            meters.values().forEach(FetchFrameMeter::clear);
            List<Exchange> idle = awaitExchanges(meters, 6);
            assertThat(idle).allSatisfy(e -> {
                assertThat(e.incremental()).isTrue();
                assertThat(e.responseSessionId()).isEqualTo(e.sessionId());
                assertThat(e.requestBytes()).isLessThan(IDLE_EXCHANGE_MAX_BYTES);
                assertThat(e.responseBytes()).isLessThan(IDLE_EXCHANGE_MAX_BYTES);
            });
            long incremental = busy.stream().filter(Exchange::incremental).count();
            System.out.printf(
                    "follower fetch sessions, %d partitions x 3 replicas: %d fetches while producing (%d"
                            + " incremental, largest request %d B, largest response %d B); idle incremental request"
                            + " %d B, response %d B%n",
                    PARTITIONS,
                    busy.size(),
                    incremental,
                    busy.stream().mapToInt(Exchange::requestBytes).max().orElse(0),
                    busy.stream().mapToInt(Exchange::responseBytes).max().orElse(0),
                    idle.get(0).requestBytes(),
                    idle.get(0).responseBytes());
        } finally {
            for (FetchFrameMeter meter : meters.values()) {
                meter.close();
            }
        }
    }

    /** Two records per partition, acks=all; returns how many were acknowledged. */
    private static int produceToEveryPartition(ClusterProcesses cluster, String topic) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.node(1).bootstrap());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 2; i++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    byte[] value = (p + "-" + i).getBytes(StandardCharsets.UTF_8);
                    sent.add(producer.send(new ProducerRecord<>(topic, p, null, value)));
                }
            }
            producer.flush();
        }
        int acknowledged = 0;
        for (Future<RecordMetadata> f : sent) {
            f.get(120, TimeUnit.SECONDS);
            acknowledged++;
        }
        return acknowledged;
    }

    private static List<Exchange> awaitExchanges(Map<Integer, FetchFrameMeter> meters, int perNode) {
        await("followers fetching")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(100))
                .until(() ->
                        meters.values().stream().allMatch(m -> m.exchanges().size() >= perNode));
        List<Exchange> all = new ArrayList<>();
        meters.values().forEach(m -> all.addAll(m.exchanges()));
        return all;
    }
}

package io.varve.it.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.ToolRun;
import io.varve.it.cluster.ClusterProcesses;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Kafka 4.4's {@code kafka-delete-records} on a replication-factor-3 partition of three real nodes: the answer comes
 * once every replica deleted the prefix (the low watermark), so a follower that takes over the moment the leader is
 * killed right after the answer already starts at the new offset. Followers idle at the leader for two seconds per
 * fetch here, so an answer that did not wait for them would come well before they learn the new log start.
 */
class ReplicatedDeleteRecordsIT {
    private static final Duration BOUND = Duration.ofSeconds(90);
    private static final String TOPIC = "trimmed";

    private ClusterProcesses cluster;
    private Path workDir;

    @BeforeEach
    void start() throws Exception {
        workDir = ClusterProcesses.workDir("ReplicatedDeleteRecordsIT");
        cluster = ClusterProcesses.combined(3)
                .override("replica.fetch.wait.max.ms", "2000")
                .override("replica.lag.time.max.ms", "10000")
                .override("broker.session.timeout.ms", "4000")
                .override("broker.heartbeat.interval.ms", "500")
                .start(workDir);
        cluster.awaitLeader(BOUND);
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void kafkaDeleteRecordsAnswersOnceEveryReplicaDeletedThePrefix() throws Exception {
        ReplicatedTopic topic = ReplicatedTopic.create(cluster, new NewTopic(TOPIC, Map.of(0, List.of(1, 2, 3))));
        Admin admin = topic.admin();
        int leader = topic.leader(0);
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, topic.bootstrap());
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
            for (int i = 0; i < 1000; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, null, "record-" + i));
            }
            producer.flush();
        }
        TopicPartition tp = new TopicPartition(TOPIC, 0);

        String offsets = ToolRun.inputFile(
                workDir,
                "offsets.json",
                "{\"version\":1,\"partitions\":[{\"topic\":\"" + TOPIC + "\",\"partition\":0,\"offset\":500}]}");
        ToolRun deleted = runTool(
                "org.apache.kafka.tools.DeleteRecordsCommand",
                "--bootstrap-server",
                cluster.node(leader).bootstrap(),
                "--offset-json-file",
                offsets);
        cluster.node(leader).kill();

        assertThat(deleted.exitCode()).as(deleted.output()).isZero();
        assertThat(deleted.output()).contains("low_watermark: 500");
        topic.awaitLeaderOtherThan(0, leader);
        long earliest = await("the new leader's log start")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(
                        () -> admin.listOffsets(Map.of(tp, OffsetSpec.earliest()))
                                .partitionResult(tp)
                                .get(5, TimeUnit.SECONDS)
                                .offset(),
                        o -> o >= 0);
        assertThat(earliest)
                .as("log start offset of the follower that took over")
                .isEqualTo(500);
    }

    /** Runs a Kafka 4.4 tool's main class in its own JVM; its output without the admin client's log lines. */
    private ToolRun runTool(String mainClass, String... args) throws IOException, InterruptedException {
        return ToolRun.run(workDir, Duration.ofSeconds(90), mainClass, List.of(args))
                .withoutLogLines();
    }
}

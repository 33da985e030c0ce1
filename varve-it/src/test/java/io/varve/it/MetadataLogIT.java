package io.varve.it;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.broker.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metadata log (the KRaft-style Raft runtime in {@code __cluster_metadata-raft}): topics, their ids, records and
 * committed offsets survive a clean restart and a SIGKILL, and the data directory of an earlier release, whose
 * metadata log the single-voter node wrote in {@code __cluster_metadata-0}, is moved onto it with everything in it.
 */
class MetadataLogIT {
    private static final String RETIRED_SETTING = "varve.metadata.raft.core.enable";
    private static final int PARTITIONS = 3;
    private static final int PER_PARTITION = 20;

    @TempDir
    Path workDir;

    @Test
    void topicsRecordsAndOffsetsSurviveACleanRestart() throws Exception {
        Path dataDir = workDir.resolve("data");
        String topic = uniqueTopic("core");
        String group = "core-group";
        Uuid topicId;
        try (TestBroker broker = TestBroker.start(dataDir)) {
            topicId = createTopic(broker.bootstrap(), topic);
            produce(broker.bootstrap(), topic);
            commitOffsets(broker.bootstrap(), group, topic);

            broker.restart();

            assertSurvived(broker.bootstrap(), topic, topicId, group);
            createTopic(broker.bootstrap(), topic + "-after"); // the restarted node leads and commits again
        }
        assertThat(dataDir.resolve("__cluster_metadata-raft")).isDirectory();
        assertThat(dataDir.resolve("__cluster_metadata-0")).doesNotExist();

        TestBroker retired = new TestBroker(dataDir, Map.of(RETIRED_SETTING, "false"));
        assertThatThrownBy(retired::startNode)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("remove the key");
        retired.close();
    }

    @Test
    void topicsRecordsAndOffsetsSurviveASigkill() throws Exception {
        Path logDir = workDir.resolve("killed");
        String topic = uniqueTopic("core-kill");
        String group = "core-kill-group";
        Uuid topicId;
        try (ServerProcess server =
                ServerProcess.startOnFreePort(workDir, "before-kill", logDir).awaitReady()) {
            topicId = createTopic(server.bootstrap(), topic);
            produce(server.bootstrap(), topic);
            commitOffsets(server.bootstrap(), group, topic);
            server.kill();
        }
        try (ServerProcess server =
                ServerProcess.startOnFreePort(workDir, "after-kill", logDir).awaitReady()) {
            assertSurvived(server.bootstrap(), topic, topicId, group);
            createTopic(server.bootstrap(), topic + "-after");
            assertThat(server.terminate(Duration.ofSeconds(20))).isTrue();
        }
        assertThat(Files.isDirectory(logDir.resolve("__cluster_metadata-raft"))).isTrue();
    }

    /**
     * {@code legacy/single-voter-data.tar.gz} is the data directory of a node of the release before this change (the
     * single-voter Raft node): Kafka 4.4's kafka-topics created {@code legacy-events} (3 partitions, retention.ms
     * 86400000), its console producer wrote 30 keyed records and its console consumer read them in group {@code
     * legacy-group}, which committed 9, 12 and 9; then SIGTERM.
     */
    @Test
    void theDataDirectoryOfTheSingleVoterReleaseIsMovedOntoTheRaftLogWithEverythingInIt() throws Exception {
        Path dataDir = extractLegacyDataDir();
        String topic = "legacy-events";
        try (TestBroker broker = TestBroker.start(dataDir)) {
            assertLegacyContents(broker.bootstrap(), topic);
            assertThat(dataDir.resolve("__cluster_metadata-raft")).isDirectory();
            assertThat(dataDir.resolve("__cluster_metadata-0")).doesNotExist();
            assertThat(dataDir.resolve("__cluster_metadata-0.migrated")).isDirectory();
            createTopic(broker.bootstrap(), "after-migration");

            broker.restart(); // the moved log is the log now: nothing is moved twice

            assertLegacyContents(broker.bootstrap(), topic);
            try (Admin admin = admin(broker.bootstrap())) {
                assertThat(admin.listTopics().names().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                        .contains(topic, "after-migration");
            }
        }
    }

    private Path extractLegacyDataDir() throws Exception {
        Path archive = Path.of(MetadataLogIT.class
                .getResource("/legacy/single-voter-data.tar.gz")
                .toURI());
        Path target = workDir.resolve("legacy");
        Files.createDirectories(target);
        Process tar = new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", target.toString())
                .redirectErrorStream(true)
                .start();
        assertThat(tar.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(tar.exitValue())
                .as(new String(tar.getInputStream().readAllBytes(), UTF_8))
                .isZero();
        return target.resolve("data");
    }

    private static void assertLegacyContents(String bootstrap, String topic) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            assertThat(admin.describeTopics(List.of(topic))
                            .allTopicNames()
                            .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                            .get(topic)
                            .partitions())
                    .hasSize(3);
            org.apache.kafka.common.config.ConfigResource resource = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
            assertThat(admin.describeConfigs(List.of(resource))
                            .all()
                            .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                            .get(resource)
                            .get("retention.ms")
                            .value())
                    .isEqualTo("86400000");
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("legacy-group")
                    .partitionsToOffsetAndMetadata()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(committed.get(new TopicPartition(topic, 0)).offset()).isEqualTo(9);
            assertThat(committed.get(new TopicPartition(topic, 1)).offset()).isEqualTo(12);
            assertThat(committed.get(new TopicPartition(topic, 2)).offset()).isEqualTo(9);
        }
        List<ConsumerRecord<byte[], byte[]>> records = readAll(bootstrap, topic);
        assertThat(records)
                .extracting(r -> new String(r.value(), UTF_8))
                .containsExactlyInAnyOrderElementsOf(java.util.stream.IntStream.rangeClosed(1, 30)
                        .mapToObj(i -> "value-" + i)
                        .toList());
    }

    private static void assertSurvived(String bootstrap, String topic, Uuid topicId, String group) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            assertThat(admin.describeTopics(List.of(topic))
                            .allTopicNames()
                            .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                            .get(topic)
                            .topicId())
                    .isEqualTo(topicId);
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(committed).isEqualTo(expectedOffsets(topic));
        }
        assertThat(readAll(bootstrap, topic)).hasSize(PARTITIONS * PER_PARTITION);
    }

    private static Uuid createTopic(String bootstrap, String topic) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            return admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)))
                    .topicId(topic)
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    private static void produce(String bootstrap, String topic) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (int partition = 0; partition < PARTITIONS; partition++) {
                for (int i = 0; i < PER_PARTITION; i++) {
                    producer.send(new ProducerRecord<>(topic, partition, null, ("v" + i).getBytes(UTF_8)));
                }
            }
            producer.flush();
        }
    }

    private static void commitOffsets(String bootstrap, String group, String topic) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            admin.alterConsumerGroupOffsets(group, expectedOffsets(topic))
                    .all()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** Partition p committed at offset 5 + p. */
    private static Map<TopicPartition, OffsetAndMetadata> expectedOffsets(String topic) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            offsets.put(new TopicPartition(topic, p), new OffsetAndMetadata(5 + p, ""));
        }
        return offsets;
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            return ClientSupport.readAll(consumer, topic, PARTITIONS);
        }
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        return Admin.create(p);
    }
}

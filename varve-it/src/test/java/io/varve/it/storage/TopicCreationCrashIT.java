package io.varve.it.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * New logs are not fsynced when they are created, and a node creates them after it answers CreateTopics. A node
 * SIGKILLed the moment CreateTopics returns still has every partition after its restart (the metadata log names
 * them, and the restart creates what the kill cut short), each one empty, led and writable; records acknowledged into
 * those logs then survive a second SIGKILL.
 */
class TopicCreationCrashIT {
    private static final String TOPIC = "born-and-killed";
    private static final int PARTITIONS = 1000;
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    Path workDir;

    @Test
    void everyPartitionOfATopicCreatedJustBeforeASigkillIsPresentAndWritableAfterTheRestart() throws Exception {
        Path logDir = workDir.resolve("data");
        Uuid topicId;
        try (ServerProcess server =
                        ServerProcess.startOnFreePort(workDir, "create", logDir).awaitReady();
                Admin admin = admin(server)) {
            topicId = admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                    .topicId(TOPIC)
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            server.kill();
        }

        Map<Integer, String> written = new HashMap<>();
        try (ServerProcess server =
                        ServerProcess.startOnFreePort(workDir, "write", logDir).awaitReady();
                Admin admin = admin(server)) {
            awaitEveryPartitionLed(admin, topicId);
            try (KafkaProducer<byte[], byte[]> producer = producer(server)) {
                List<Future<RecordMetadata>> sends = new ArrayList<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    String value = "first record of partition " + p;
                    written.put(p, value);
                    sends.add(producer.send(new ProducerRecord<>(TOPIC, p, null, value.getBytes(UTF_8))));
                }
                for (int p = 0; p < PARTITIONS; p++) {
                    assertThat(sends.get(p)
                                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                                    .offset())
                            .as("partition %d was empty after the restart", p)
                            .isZero();
                }
            }
            server.kill();
        }
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(Files.readString(logDir.resolve(TOPIC + "-" + p).resolve("partition.metadata")))
                    .as("partition.metadata of partition %d", p)
                    .contains(topicId.toString());
        }

        try (ServerProcess server =
                        ServerProcess.startOnFreePort(workDir, "read", logDir).awaitReady();
                Admin admin = admin(server)) {
            awaitEveryPartitionLed(admin, topicId);
            assertThat(readOneRecordPerPartition(server)).isEqualTo(written);
            assertThat(server.terminate(Duration.ofSeconds(30))).isTrue();
        }
    }

    private static Admin admin(ServerProcess server) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        return Admin.create(p);
    }

    private static KafkaProducer<byte[], byte[]> producer(ServerProcess server) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        return new KafkaProducer<>(p);
    }

    private static void awaitEveryPartitionLed(Admin admin, Uuid topicId) {
        await().atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> {
                    TopicDescription d = admin.describeTopics(List.of(TOPIC))
                            .allTopicNames()
                            .get(10, TimeUnit.SECONDS)
                            .get(TOPIC);
                    return d.topicId().equals(topicId)
                            && d.partitions().size() == PARTITIONS
                            && d.partitions().stream().allMatch(TopicCreationCrashIT::led);
                });
    }

    private static boolean led(TopicPartitionInfo partition) {
        return partition.leader() != null && partition.leader().id() >= 0;
    }

    private static Map<Integer, String> readOneRecordPerPartition(ServerProcess server) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<Integer, String> read = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) {
                tps.add(new TopicPartition(TOPIC, i));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            await().atMost(TIMEOUT)
                    .pollInSameThread()
                    .pollInterval(Duration.ZERO)
                    .until(() -> {
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                            assertThat(r.offset())
                                    .as("offset in partition %d", r.partition())
                                    .isZero();
                            assertThat(read.put(r.partition(), new String(r.value(), UTF_8)))
                                    .as("one record in partition %d", r.partition())
                                    .isNull();
                        }
                        return read.size() == PARTITIONS;
                    });
        }
        return read;
    }
}

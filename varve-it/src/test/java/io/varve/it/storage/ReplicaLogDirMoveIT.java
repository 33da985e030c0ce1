package io.varve.it.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.ServerProcess;
import io.varve.it.ToolRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeReplicaLogDirsResult.ReplicaLogDirInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker process with two log dirs moves a partition's replica from one to the other while a producer (acks=all)
 * and a consumer run throughout: first with Kafka 4.4's {@code kafka-reassign-partitions} and a plan naming
 * {@code log_dirs}, then back with {@code Admin.alterReplicaLogDirs}. No send fails, the consumer reads every
 * acknowledged record, and after a SIGKILL and a restart every acknowledged record is still there, once, at its offset.
 */
class ReplicaLogDirMoveIT {
    private static final String TOPIC = "moving";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final String REASSIGN = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    Path workDir;

    private ServerProcess startBroker(String name, Path a, Path b, int port) throws Exception {
        return ServerProcess.start(
                        workDir,
                        name,
                        port,
                        "--override",
                        "listeners=PLAINTEXT://127.0.0.1:" + port,
                        "--override",
                        "log.dirs=" + a + "," + b,
                        "--override",
                        "log.segment.bytes=1048576")
                .awaitReady();
    }

    private static Admin admin(ServerProcess server) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        return Admin.create(p);
    }

    private static ReplicaLogDirInfo where(Admin admin, TopicPartitionReplica replica) throws Exception {
        return admin.describeReplicaLogDirs(List.of(replica))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(replica);
    }

    /** Sends numbered records in rounds of 50 (acks=all, idempotent) until stopped, recording what was acknowledged. */
    private static final class Producing implements AutoCloseable {
        final Map<Long, String> acked = new ConcurrentHashMap<>();
        final ConcurrentLinkedQueue<Exception> failures = new ConcurrentLinkedQueue<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread thread;

        Producing(String bootstrap) {
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
            String padding = "x".repeat(400);
            thread = new Thread(() -> {
                try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
                    long n = 0;
                    while (!stop.get()) {
                        for (int i = 0; i < 50; i++, n++) {
                            String value = "r" + n + ":" + padding;
                            producer.send(new ProducerRecord<>(TOPIC, 0, null, value.getBytes(UTF_8)), (md, e) -> {
                                if (e != null) {
                                    failures.add(e);
                                } else {
                                    acked.put(md.offset(), value);
                                }
                            });
                        }
                        producer.flush();
                    }
                }
            });
            thread.start();
        }

        void awaitMoreAcks(int more) {
            int target = acked.size() + more;
            await().atMost(TIMEOUT).until(() -> acked.size() >= target || !thread.isAlive());
            assertThat(acked.size()).isGreaterThanOrEqualTo(target);
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join(TIMEOUT.toMillis());
        }
    }

    /** Reads the partition from its start until stopped, recording every record by offset. */
    private static final class Consuming implements AutoCloseable {
        final Map<Long, String> read = new ConcurrentHashMap<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread thread;

        Consuming(String bootstrap) {
            thread = new Thread(() -> {
                try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
                    consumer.assign(List.of(TP));
                    consumer.seekToBeginning(List.of(TP));
                    while (!stop.get()) {
                        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                            read.put(r.offset(), new String(r.value(), UTF_8));
                        }
                    }
                }
            });
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join(TIMEOUT.toMillis());
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(p);
    }

    @Test
    void aReplicaMovesToTheOtherLogDirAndBackWhileProducingAndConsumingAndKeepsEveryAckThroughASigkill()
            throws Exception {
        Path a = workDir.resolve("dir-a").toAbsolutePath();
        Path b = workDir.resolve("dir-b").toAbsolutePath();
        int port = ServerProcess.freePort();
        Map<Long, String> acked;
        TopicPartitionReplica replica;
        String first;
        String second;
        try (ServerProcess server = startBroker("first", a, b, port);
                Admin admin = admin(server)) {
            int nodeId = admin.describeCluster()
                    .nodes()
                    .get(30, TimeUnit.SECONDS)
                    .iterator()
                    .next()
                    .id();
            replica = new TopicPartitionReplica(TOPIC, 0, nodeId);
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            await().atMost(TIMEOUT)
                    .ignoreExceptions()
                    .until(() -> where(admin, replica).getCurrentReplicaLogDir() != null);
            first = where(admin, replica).getCurrentReplicaLogDir();
            second = Path.of(first).equals(a) ? b.toString() : a.toString();

            try (Producing producing = new Producing(server.bootstrap());
                    Consuming consuming = new Consuming(server.bootstrap())) {
                producing.awaitMoreAcks(5_000); // several segments to copy

                // 1. kafka-reassign-partitions with a plan naming the log dir
                String plan = ToolRun.inputFile(
                        workDir,
                        "plan.json",
                        "{\"version\":1,\"partitions\":[{\"topic\":\"" + TOPIC + "\",\"partition\":0,\"replicas\":["
                                + nodeId + "],\"log_dirs\":[\"" + second + "\"]}]}");
                ToolRun execute = ToolRun.run(
                        workDir,
                        TIMEOUT,
                        REASSIGN,
                        List.of(
                                "--bootstrap-server",
                                server.bootstrap(),
                                "--execute",
                                "--reassignment-json-file",
                                plan));
                assertThat(execute.exitCode()).as(execute.output()).isZero();
                await().atMost(TIMEOUT).untilAsserted(() -> {
                    ReplicaLogDirInfo info = where(admin, replica);
                    assertThat(info.getCurrentReplicaLogDir()).isEqualTo(second);
                    assertThat(info.getFutureReplicaLogDir()).isNull();
                });
                ToolRun verify = ToolRun.run(
                        workDir,
                        TIMEOUT,
                        REASSIGN,
                        List.of(
                                "--bootstrap-server",
                                server.bootstrap(),
                                "--verify",
                                "--reassignment-json-file",
                                plan));
                assertThat(verify.output()).as(verify.output()).contains("completed");
                producing.awaitMoreAcks(3_000);

                // 2. Admin.alterReplicaLogDirs back to the first dir
                admin.alterReplicaLogDirs(Map.of(replica, first)).all().get(30, TimeUnit.SECONDS);
                await().atMost(TIMEOUT).untilAsserted(() -> {
                    ReplicaLogDirInfo info = where(admin, replica);
                    assertThat(info.getCurrentReplicaLogDir()).isEqualTo(first);
                    assertThat(info.getFutureReplicaLogDir()).isNull();
                });
                producing.awaitMoreAcks(3_000);
                producing.close();
                assertThat(producing.failures).as("failed sends").isEmpty();
                acked = Map.copyOf(producing.acked);
                await().atMost(TIMEOUT)
                        .untilAsserted(() -> assertThat(consuming.read).containsAllEntriesOf(acked));
            }
            server.kill();
        }

        try (ServerProcess restarted = startBroker("restarted", a, b, port);
                Admin admin = admin(restarted)) {
            assertThat(where(admin, replica).getCurrentReplicaLogDir()).isEqualTo(first);
            Map<Long, String> read = new java.util.HashMap<>();
            try (KafkaConsumer<byte[], byte[]> consumer = consumer(restarted.bootstrap())) {
                consumer.assign(List.of(TP));
                consumer.seekToBeginning(List.of(TP));
                long end = consumer.endOffsets(List.of(TP)).get(TP);
                await().atMost(TIMEOUT).until(() -> {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        assertThat(read.put(r.offset(), new String(r.value(), UTF_8)))
                                .as("offset %d read twice", r.offset())
                                .isNull();
                    }
                    return consumer.position(TP) >= end;
                });
            }
            assertThat(read).containsAllEntriesOf(acked);
            assertThat(read.values().stream().distinct().count())
                    .as("no record twice")
                    .isEqualTo(read.size());
        }
    }
}

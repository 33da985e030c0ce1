package io.varve.cli;

import io.varve.broker.Broker;
import io.varve.broker.config.BrokerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code varve cds-training} (hidden): the workload {@code bin/varve} runs once after each build under
 * {@code -XX:ArchiveClassesAtExit} (JDK 25 on: {@code -XX:AOTCacheOutput}) to record which classes a node loads —
 * start, create topics, produce, consume in a group, stop, and start again over the same data (the log-loading
 * path). The JVM then writes those classes into an application class-data-sharing archive that every later
 * {@code bin/varve server} maps instead of loading, parsing and verifying ~2,000 classes from jars: start-up is mostly
 * class loading on a cold JVM.
 *
 * <p>The clients (Admin, producer, consumer) run in a child JVM ({@code cds-training --clients BOOTSTRAP}), not in the
 * training JVM: a node never loads their ~1,000 classes, yet every archived class costs resident memory in every node
 * (the JVM relocates the archive when it maps it, which writes to each of its pages).
 */
@Command(
        name = "cds-training",
        hidden = true,
        description = "Run a short broker workload so the JVM can archive the classes a node uses (used by bin/varve).")
public final class CdsTrainingCommand implements Callable<Integer> {
    private static final String TOPIC = "cds-training";
    private static final int PARTITIONS = 24;
    private static final int RECORDS = 2_000;
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @Option(
            names = "--clients",
            hidden = true,
            description = "Run only the client workload against this bootstrap address (the child JVM).")
    private String clientsBootstrap;

    @Override
    public Integer call() throws Exception {
        if (clientsBootstrap != null) {
            exercise(clientsBootstrap);
            return 0;
        }
        Path dataDir = Files.createTempDirectory("varve-cds-training");
        try {
            Broker broker = start(dataDir);
            try {
                runClients("127.0.0.1:" + broker.boundPort("PLAINTEXT"));
            } finally {
                broker.close();
            }
            start(dataDir).close();
            return 0;
        } finally {
            deleteRecursively(dataDir);
        }
    }

    /** The client workload in a JVM of its own (same java, same class path, none of this JVM's archive options). */
    private static void runClients(String bootstrap) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(
                        java,
                        "-Xmx256m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Varve.class.getName(),
                        "cds-training",
                        "--clients",
                        bootstrap)
                .inheritIO()
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        try {
            if (!child.waitFor(DEADLINE.toSeconds() * 2, TimeUnit.SECONDS)) {
                throw new IllegalStateException(
                        "the training clients did not finish within " + DEADLINE.toSeconds() * 2 + " s");
            }
        } finally {
            child.destroyForcibly(); // no-op once it exited; stops it by its own handle otherwise
        }
        if (child.exitValue() != 0) {
            throw new IllegalStateException("the training clients failed with exit code " + child.exitValue());
        }
    }

    private static Broker start(Path dataDir) throws Exception {
        Broker broker = new Broker(BrokerConfig.fromMap(Map.of(
                "node.id", "1",
                "listeners", "PLAINTEXT://127.0.0.1:0",
                "log.dirs", dataDir.toString(),
                "group.initial.rebalance.delay.ms", "0",
                "offsets.topic.num.partitions", "2")));
        broker.start();
        return broker;
    }

    private static void exercise(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(
                            new NewTopic(TOPIC, PARTITIONS, (short) 1),
                            new NewTopic(TOPIC + "-compacted", 1, (short) 1)
                                    .configs(Map.of("cleanup.policy", "compact"))))
                    .all()
                    .get();
            produce(bootstrap);
            consume(bootstrap);
            admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, TOPIC)))
                    .all()
                    .get();
            admin.listOffsets(Map.of(new TopicPartition(TOPIC, 0), OffsetSpec.latest()))
                    .all()
                    .get();
            admin.describeConsumerGroups(List.of(TOPIC)).all().get();
        }
    }

    private static void produce(String bootstrap) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] value = new byte[512];
            for (int i = 0; i < RECORDS; i++) {
                byte[] key = Integer.toString(i % 100).getBytes();
                producer.send(new ProducerRecord<>(TOPIC, key, value));
                producer.send(new ProducerRecord<>(TOPIC + "-compacted", key, value));
            }
            producer.flush();
        }
    }

    private static void consume(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, TOPIC);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            long deadlineNanos = System.nanoTime() + DEADLINE.toNanos();
            int read = 0;
            while (read < RECORDS && System.nanoTime() < deadlineNanos) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                read += records.count();
            }
            if (read < RECORDS) {
                throw new IllegalStateException("read " + read + " of " + RECORDS + " records before the deadline");
            }
            consumer.commitSync();
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}

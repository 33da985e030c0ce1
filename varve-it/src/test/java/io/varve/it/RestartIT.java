package io.varve.it;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.ofPartition;
import static io.varve.it.ClientSupport.readAll;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What was acknowledged or decided before a clean restart (records, topics, ids, configs, deletions) is there after it. */
class RestartIT {
    @TempDir
    static Path dataDir;

    static TestBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = TestBroker.start(dataDir, Map.of("auto.create.topics.enable", "false"));
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void topicsTheirIdsAndRecordsSurviveARestartAndProduceContinuesAtTheNextOffset() throws Exception {
        String topic = uniqueTopic("durable");
        int partitions = 2;
        int perPartition = 50;
        Uuid createdId;
        try (Admin admin = broker.admin()) {
            createdId = createTopic(admin, topic, partitions);
            assertThat(describe(admin, topic).topicId()).isEqualTo(createdId);
        }
        send(topic, partitions, perPartition, 0);

        broker.restart();

        try (Admin admin = broker.admin()) {
            TopicDescription after = describe(admin, topic);
            assertThat(after.topicId()).isEqualTo(createdId);
            assertThat(after.partitions()).hasSize(partitions);
            assertThat(admin.listTopics().names().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                    .contains(topic);
        }
        List<ConsumerRecord<byte[], byte[]>> read = readAll(broker, topic, partitions);
        assertThat(read).hasSize(partitions * perPartition);
        for (int p = 0; p < partitions; p++) {
            List<ConsumerRecord<byte[], byte[]>> records = ofPartition(read, p);
            assertThat(records)
                    .extracting(ConsumerRecord::offset)
                    .containsExactlyElementsOf(
                            LongStream.range(0, perPartition).boxed().toList());
            assertThat(records)
                    .extracting(r -> new String(r.value(), UTF_8))
                    .containsExactlyInAnyOrderElementsOf(IntStream.range(0, perPartition)
                            .mapToObj(i -> "record-" + i)
                            .toList());
        }

        List<RecordMetadata> next = send(topic, partitions, 1, perPartition);
        assertThat(next).extracting(RecordMetadata::offset).containsOnly((long) perPartition);
        assertThat(readAll(broker, topic, partitions)).hasSize(partitions * (perPartition + 1));
    }

    @Test
    void aDeletedTopicStaysDeletedAfterARestart() throws Exception {
        String deleted = uniqueTopic("deleted");
        String kept = uniqueTopic("kept");
        try (Admin admin = broker.admin()) {
            createTopic(admin, deleted, 1);
            createTopic(admin, kept, 1);
        }
        send(deleted, 1, 10, 0);
        try (Admin admin = broker.admin()) {
            admin.deleteTopics(List.of(deleted)).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }

        broker.restart();

        try (Admin admin = broker.admin()) {
            assertThat(admin.listTopics().names().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                    .contains(kept)
                    .doesNotContain(deleted);
            assertThat(admin.describeTopics(List.of(deleted)).allTopicNames())
                    .failsWithin(TIMEOUT)
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(UnknownTopicOrPartitionException.class);
            // The name is free again: a new topic of that name starts empty.
            createTopic(admin, deleted, 1);
        }
        assertThat(readAll(broker, deleted, 1)).isEmpty();
    }

    @Test
    void topicConfigsGivenAtCreationAreReportedAndStillAppliedAfterARestart() throws Exception {
        String topic = uniqueTopic("configured");
        try (Admin admin = broker.admin()) {
            CreateTopicsResult result = admin.createTopics(
                    List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of("max.message.bytes", "5000"))));
            Config config = result.config(topic).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(config.get("max.message.bytes")).isNotNull();
            assertThat(config.get("max.message.bytes").value()).isEqualTo("5000");
        }

        broker.restart();

        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of())) {
            Future<RecordMetadata> tooLarge = producer.send(new ProducerRecord<>(topic, 0, null, new byte[10_000]));
            assertThat(tooLarge)
                    .failsWithin(TIMEOUT)
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(RecordTooLargeException.class);
            assertThat(producer.send(new ProducerRecord<>(topic, 0, null, new byte[1_000]))
                            .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                            .offset())
                    .isZero();
        }
    }

    /** A clean restart opens logs on first use or in the background: deletions and reads must not care which. */
    @Test
    void rightAfterARestartADeletedTopicLeavesNoLogBehindAndTheOtherTopicsServeEveryRecord() throws Exception {
        String doomed = uniqueTopic("doomed");
        String kept = uniqueTopic("kept");
        int partitions = 40;
        try (Admin admin = broker.admin()) {
            createTopic(admin, doomed, partitions);
            createTopic(admin, kept, partitions);
        }
        send(doomed, partitions, 3, 0);
        send(kept, partitions, 3, 0);

        broker.restart();

        try (Admin admin = broker.admin()) {
            admin.deleteTopics(List.of(doomed)).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
        org.awaitility.Awaitility.await().atMost(TIMEOUT).untilAsserted(() -> {
            try (java.util.stream.Stream<Path> children = java.nio.file.Files.list(dataDir)) {
                assertThat(children.map(p -> p.getFileName().toString())).noneMatch(name -> name.startsWith(doomed));
            }
        });
        List<ConsumerRecord<byte[], byte[]>> read = readAll(broker, kept, partitions);
        assertThat(read).hasSize(partitions * 3);
        List<RecordMetadata> next = send(kept, partitions, 1, 3);
        assertThat(next).extracting(RecordMetadata::offset).containsOnly(3L);
    }

    private static TopicDescription describe(Admin admin, String topic) throws Exception {
        return admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .get(topic);
    }

    /** Sends {@code perPartition} records "record-i" (i from {@code firstIndex}) to each partition; returns the acks. */
    private static List<RecordMetadata> send(String topic, int partitions, int perPartition, int firstIndex)
            throws Exception {
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of())) {
            for (int i = firstIndex; i < firstIndex + perPartition; i++) {
                for (int p = 0; p < partitions; p++) {
                    futures.add(producer.send(new ProducerRecord<>(topic, p, null, ("record-" + i).getBytes(UTF_8))));
                }
            }
            producer.flush();
        }
        List<RecordMetadata> acks = new ArrayList<>();
        for (Future<RecordMetadata> f : futures) {
            acks.add(f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        }
        return acks;
    }
}

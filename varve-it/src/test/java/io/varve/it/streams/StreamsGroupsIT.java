package io.varve.it.streams;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.TestBroker;
import io.varve.it.txn.StreamsEosApp;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka Streams 4.4 application with {@code group.protocol=streams} against Varve, seen through the Admin client
 * and Kafka 4.4's {@code kafka-streams-groups} tool: the group is listed with type Streams, described with its
 * topology, members and tasks, survives a restart of its coordinator (the group record in
 * {@code __consumer_offsets}), has its offsets described and reset by the tool, and is deleted once empty.
 */
class StreamsGroupsIT {
    private static final String APP = "varve-streams-groups";
    private static final String INPUT = "sg-amounts";
    private static final String OUTPUT = "sg-sums";

    @TempDir
    Path workDir;

    private Path dataDir;
    private TestBroker broker;

    @BeforeEach
    void start() throws Exception {
        dataDir = Files.createDirectories(workDir.resolve("data"));
        broker = TestBroker.start(
                dataDir,
                Map.of(
                        "offsets.topic.num.partitions", "2",
                        "transaction.state.log.num.partitions", "2",
                        "group.streams.min.session.timeout.ms", "1000",
                        "group.streams.session.timeout.ms", "6000",
                        "group.streams.min.heartbeat.interval.ms", "100",
                        "group.streams.heartbeat.interval.ms", "300"));
    }

    @AfterEach
    void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    private record ToolRun(int exitCode, String output) {}

    /** Kafka 4.4's kafka-streams-groups (StreamsGroupCommand), run as a process. */
    private ToolRun streamsGroups(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "org.apache.kafka.tools.streams.StreamsGroupCommand",
                "--bootstrap-server",
                broker.bootstrap()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(workDir, "tool", ".out");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return new ToolRun(-1, Files.readString(out));
        }
        return new ToolRun(process.exitValue(), Files.readString(out));
    }

    private static StreamsGroupDescription describe(Admin admin) throws Exception {
        return admin.describeStreamsGroups(List.of(APP))
                .all()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .get(APP);
    }

    @Test
    void aStreamsGroupIsListedDescribedKeptAcrossACoordinatorRestartAndDeleted() throws Exception {
        try (Admin admin = broker.admin()) {
            createTopic(admin, INPUT, 2);
            createTopic(admin, OUTPUT, 1);
        }
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of())) {
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>(
                        INPUT,
                        ("user-" + i).getBytes(),
                        ByteBuffer.allocate(8).putLong(i).array()));
            }
            producer.flush();
        }
        int epochBeforeRestart;
        try (KafkaStreams streams = new KafkaStreams(
                StreamsEosApp.topology(INPUT, OUTPUT),
                StreamsEosApp.config(broker.bootstrap(), APP, workDir.resolve("state"), "streams"))) {
            streams.start();
            try (Admin admin = broker.admin()) {
                await().atMost(TIMEOUT)
                        .pollInterval(Duration.ofMillis(200))
                        .ignoreExceptions()
                        .until(() -> describe(admin).groupState() == GroupState.STABLE
                                && describe(admin).members().size() == 2);
                StreamsGroupDescription d = describe(admin);
                assertThat(d.subtopologies()).hasSize(2);
                assertThat(d.assignorName()).contains("sticky");
                int activeTasks = d.members().stream()
                        .mapToInt(m -> m.assignment().activeTasks().stream()
                                .mapToInt(t -> t.partitions().size())
                                .sum())
                        .sum();
                assertThat(activeTasks).as("2 subtopologies of 2 tasks each").isEqualTo(4);
                epochBeforeRestart = d.groupEpoch();

                List<GroupListing> listed = new ArrayList<>(admin.listGroups(ListGroupsOptions.forStreamsGroups())
                        .all()
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
                assertThat(listed).singleElement().satisfies(g -> {
                    assertThat(g.groupId()).isEqualTo(APP);
                    assertThat(g.type()).contains(GroupType.STREAMS);
                });
                // The broker created the internal topics the topology declared.
                assertThat(admin.listTopics().names().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                        .contains(APP + "-by-bucket-repartition", APP + "-sums-changelog");
            }

            ToolRun list = streamsGroups("--list");
            assertThat(list.exitCode()).as(list.output()).isZero();
            assertThat(list.output()).contains(APP);
            ToolRun members = streamsGroups("--describe", "--members", "--group", APP);
            assertThat(members.exitCode()).as(members.output()).isZero();
            assertThat(members.output()).contains(APP).contains("MEMBER").contains("PROCESS");
            ToolRun state = streamsGroups("--describe", "--state", "--group", APP);
            assertThat(state.exitCode()).as(state.output()).isZero();
            assertThat(state.output()).contains("Stable");
        }

        broker.restart();
        try (Admin admin = broker.admin()) {
            // Read back from __consumer_offsets: the same group and epoch (its members, closed with the app,
            // left before the restart, which itself is a new epoch).
            await().atMost(TIMEOUT)
                    .pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions()
                    .until(() -> describe(admin).groupState() == GroupState.EMPTY);
            StreamsGroupDescription reloaded = describe(admin);
            assertThat(reloaded.groupEpoch()).isGreaterThanOrEqualTo(epochBeforeRestart);
            assertThat(reloaded.subtopologies()).as("the topology, read back").hasSize(2);
            assertThat(reloaded.topologyEpoch()).isZero();
        }
        ToolRun offsets = streamsGroups("--describe", "--offsets", "--group", APP);
        assertThat(offsets.exitCode()).as(offsets.output()).isZero();
        ToolRun reset =
                streamsGroups("--reset-offsets", "--group", APP, "--input-topic", INPUT, "--to-earliest", "--execute");
        assertThat(reset.exitCode()).as(reset.output()).isZero();
        try (Admin admin = broker.admin()) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(APP)
                    .partitionsToOffsetAndMetadata()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(committed.get(new TopicPartition(INPUT, 0)).offset()).isZero();
            assertThat(committed.get(new TopicPartition(INPUT, 1)).offset()).isZero();
        }
        ToolRun delete = streamsGroups("--delete", "--group", APP);
        assertThat(delete.exitCode()).as(delete.output()).isZero();
        assertThat(delete.output()).contains(APP);
        ToolRun after = streamsGroups("--list");
        assertThat(after.output()).doesNotContain(APP);
    }

    @Test
    void streamsGroupsAreServedWhileStreamsVersionOneIsFinalizedAsOnANewCluster() throws Exception {
        try (Admin admin = broker.admin()) {
            FeatureMetadata features =
                    admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS);
            assertThat(features.finalizedFeatures().get("streams.version").maxVersionLevel())
                    .isEqualTo((short) 1);
            assertThat(admin.describeStreamsGroups(List.of("nobody"))
                            .all()
                            .toCompletionStage()
                            .toCompletableFuture()
                            .handle((r, e) -> e)
                            .get(30, TimeUnit.SECONDS))
                    .as("served: an unknown group is GROUP_ID_NOT_FOUND")
                    .hasCauseInstanceOf(GroupIdNotFoundException.class);

            admin.updateFeatures(
                            Map.of(
                                    "streams.version",
                                    new FeatureUpdate((short) 0, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)),
                            new UpdateFeaturesOptions())
                    .all()
                    .get(30, TimeUnit.SECONDS);
            await().atMost(TIMEOUT)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> admin.describeStreamsGroups(List.of("nobody"))
                                    .all()
                                    .toCompletionStage()
                                    .toCompletableFuture()
                                    .handle((r, e) -> e)
                                    .get(30, TimeUnit.SECONDS)
                                    .getCause()
                            instanceof UnsupportedVersionException);
        }
    }
}

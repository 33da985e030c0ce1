package io.varve.it.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.TestBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kafka 4.4's kafka-share-groups (ShareGroupCommand, a separate process) against one Varve node. */
class ShareGroupsToolIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String GROUP = "tool-group";
    private static final String TOPIC = "tool-topic";

    @TempDir
    Path dir;

    @Test
    void listDescribeResetDeleteOffsetsAndDeleteAShareGroup() throws Exception {
        try (TestBroker broker = TestBroker.start(dir.resolve("data"), ShareClients.brokerOverrides());
                Admin admin = broker.admin();
                KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            try (KafkaShareConsumer<String, String> c =
                    ShareClients.consumer(broker.bootstrap(), GROUP, "implicit", 50)) {
                c.subscribe(List.of(TOPIC));
                List<String> got = new ArrayList<>();
                long deadline = System.nanoTime() + WAIT.toNanos();
                // the group starts at the end: send until it has received 3 records (all accepted by the commit)
                while (got.size() < 3) {
                    assertThat(System.nanoTime()).isLessThan(deadline);
                    producer.send(new ProducerRecord<>(TOPIC, 0, null, "v".getBytes(StandardCharsets.UTF_8)));
                    producer.flush();
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(300))) {
                        got.add(r.value());
                    }
                }
                c.commitSync();
                // one more record nobody takes: the lag
                producer.send(new ProducerRecord<>(TOPIC, 0, null, "w".getBytes(StandardCharsets.UTF_8)));
                producer.flush();
                long end = admin.listOffsets(Map.of(
                                new org.apache.kafka.common.TopicPartition(TOPIC, 0),
                                org.apache.kafka.clients.admin.OffsetSpec.latest()))
                        .all()
                        .get()
                        .values()
                        .iterator()
                        .next()
                        .offset();

                assertThat(tool(broker, "--list").output()).contains(GROUP);
                String members = tool(broker, "--describe", "--group", GROUP, "--members")
                        .output();
                assertThat(members).contains(GROUP).contains(TOPIC + ":0");
                String state =
                        tool(broker, "--describe", "--group", GROUP, "--state").output();
                assertThat(state).containsPattern(GROUP + "\\s+127\\.0\\.0\\.1:\\d+\\s+\\(1\\)\\s+Stable\\s+1");
                c.close();
                Awaitility.await()
                        .atMost(WAIT)
                        .until(() -> admin.describeShareGroups(List.of(GROUP))
                                        .all()
                                        .get()
                                        .get(GROUP)
                                        .groupState()
                                == GroupState.EMPTY);
                String offsets = tool(broker, "--describe", "--group", GROUP).output();
                // GROUP TOPIC PARTITION START-OFFSET LAG: every record before the last was accepted
                assertThat(offsets).containsPattern(GROUP + "\\s+" + TOPIC + "\\s+0\\s+\\d+\\s+\\d+");
                assertThat(startOffset(offsets)).isBetween(end - 2, end - 1);
            }

            ToolRun reset =
                    tool(broker, "--reset-offsets", "--group", GROUP, "--topic", TOPIC, "--to-earliest", "--execute");
            assertThat(reset.exitCode()).as(reset.output()).isZero();
            assertThat(startOffset(tool(broker, "--describe", "--group", GROUP).output()))
                    .isZero();

            ToolRun deleteOffsets = tool(broker, "--delete-offsets", "--group", GROUP, "--topic", TOPIC);
            assertThat(deleteOffsets.exitCode()).as(deleteOffsets.output()).isZero();
            assertThat(deleteOffsets.output()).contains(TOPIC);

            ToolRun delete = tool(broker, "--delete", "--group", GROUP);
            assertThat(delete.exitCode()).as(delete.output()).isZero();
            assertThat(delete.output())
                    .contains("Deletion of requested share groups ('" + GROUP + "') was successful.");
            assertThat(tool(broker, "--list").output()).doesNotContain(GROUP);
        }
    }

    /** The START-OFFSET column of the describe line of the group's partition 0. */
    private static long startOffset(String describeOutput) {
        for (String line : describeOutput.split("\n")) {
            String[] cols = line.trim().split("\\s+");
            if (cols.length >= 5 && cols[0].equals(GROUP) && cols[1].equals(TOPIC) && cols[2].equals("0")) {
                return Long.parseLong(cols[3]);
            }
        }
        throw new AssertionError("no offsets line in: " + describeOutput);
    }

    private record ToolRun(int exitCode, String output) {}

    private ToolRun tool(TestBroker broker, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "org.apache.kafka.tools.consumer.group.ShareGroupCommand",
                "--bootstrap-server",
                broker.bootstrap()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "tool", ".out");
        Process process = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(Files.createTempFile(dir, "tool", ".err").toFile())
                .start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return new ToolRun(-1, Files.readString(out));
        }
        return new ToolRun(process.exitValue(), Files.readString(out));
    }
}

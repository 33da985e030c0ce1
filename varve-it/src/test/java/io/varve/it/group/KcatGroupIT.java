package io.varve.it.group;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.Kcat;
import io.varve.it.SharedBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** librdkafka's balanced consumer (kcat -G) against the classic group protocol. */
class KcatGroupIT {
    private static final int PARTITIONS = 6;
    private static final int RECORDS = 600;

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(GroupClients.brokerOverrides());

    @TempDir
    static Path workDir;

    @BeforeAll
    static void checkPrerequisites() {
        Kcat.assumeInstalled();
    }

    @Test
    void balancedKcatConsumersShareATopicWithNoRecordMissing() throws Exception {
        String topic = uniqueTopic("kcat-group");
        String group = "kcat-" + topic;
        createTopic(shared.admin(), topic, PARTITIONS);
        List<Process> processes = new ArrayList<>();
        List<Path> outputs = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                Path out = workDir.resolve(topic + "-" + i + ".out");
                outputs.add(out);
                processes.add(new ProcessBuilder(
                                Kcat.PATH.toString(),
                                "-b",
                                shared.broker().bootstrap(),
                                "-G",
                                group,
                                "-u",
                                "-q",
                                "-f",
                                "%s\\n",
                                "-X",
                                "auto.offset.reset=earliest",
                                "-X",
                                "session.timeout.ms=6000",
                                "-X",
                                "heartbeat.interval.ms=300",
                                topic)
                        .redirectOutput(out.toFile())
                        .redirectError(
                                Path.of(out.toString().replace(".out", ".err")).toFile())
                        .start());
            }
            await("both kcat members share the partitions")
                    .atMost(TIMEOUT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> bothMembersAssigned(group));

            Set<String> expected = new HashSet<>();
            try (KafkaProducer<byte[], byte[]> producer = shared.broker().producer(Map.of())) {
                for (int i = 0; i < RECORDS; i++) {
                    String value = "record-" + i;
                    expected.add(value);
                    producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, value.getBytes(UTF_8)));
                }
                producer.flush();
            }
            try {
                await("every record printed by one of the kcat consumers")
                        .atMost(TIMEOUT)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> lines(outputs).containsAll(expected));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                Set<String> missing = new HashSet<>(expected);
                missing.removeAll(lines(outputs));
                StringBuilder err = new StringBuilder();
                for (Path out : outputs) {
                    err.append(Files.readString(Path.of(out.toString().replace(".out", ".err"))));
                }
                throw new AssertionError(missing.size() + " records missing; kcat stderr: " + err, e);
            }
            for (Path out : outputs) {
                assertThat(Files.readAllLines(out))
                        .as("each member consumed its share")
                        .isNotEmpty();
            }
        } finally {
            for (Process p : processes) {
                p.destroy();
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

    private static boolean bothMembersAssigned(String group) throws Exception {
        ConsumerGroupDescription d;
        try {
            d = shared.admin()
                    .describeConsumerGroups(List.of(group))
                    .describedGroups()
                    .get(group)
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException) {
                return false; // the kcat consumers have not joined yet (their coordinator may still be loading)
            }
            throw e;
        }
        return d.groupState() == GroupState.STABLE
                && d.members().size() == 2
                && d.members().stream().map(MemberDescription::assignment).allMatch(a -> !a.topicPartitions()
                        .isEmpty());
    }

    private static Set<String> lines(List<Path> outputs) throws IOException {
        Set<String> all = new HashSet<>();
        for (Path out : outputs) {
            all.addAll(Files.readAllLines(out));
        }
        return all;
    }
}

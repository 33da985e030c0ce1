package io.varve.it.txn;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.ClientSupport;
import io.varve.it.SharedBroker;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberAssignment;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kafka Streams with processing.guarantee=exactly_once_v2 against Varve: an aggregation with a state store, a
 * repartition topic and 2 stream threads per instance, run by two instances of which one (a child JVM) is killed
 * with SIGKILL mid-run and restarted. Read read_committed, the output is exactly what a single-threaded reference
 * computation gives: per bucket, one update per input record, rising to the exact sum. Run with both group
 * protocols: {@code classic} (the client-side assignor) and {@code streams} (KIP-1071: the broker's task assignor,
 * the broker creating the repartition and changelog topics).
 */
class StreamsExactlyOnceIT {
    private static final int INPUT_PARTITIONS = 4;
    private static final int OUTPUT_PARTITIONS = 2;
    private static final int USERS = 40;
    private static final int RECORDS_PER_PHASE = 600;

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(Map.of(
            "transaction.state.log.num.partitions", "4",
            "offsets.topic.num.partitions", "4",
            "group.initial.rebalance.delay.ms", "0",
            "group.min.session.timeout.ms", "500",
            "transaction.abort.timed.out.transaction.cleanup.interval.ms", "200",
            // The streams protocol's session is the broker's: short, so a killed instance's tasks move quickly.
            "group.streams.min.session.timeout.ms", "1000",
            "group.streams.session.timeout.ms", "2000",
            "group.streams.min.heartbeat.interval.ms", "100",
            "group.streams.heartbeat.interval.ms", "300"));

    @TempDir
    Path workDir;

    private String protocol;
    private String input;
    private String output;
    private String applicationId;

    /** The single-threaded reference: per bucket, how many amounts and their sum. */
    private record Expected(Map<String, Integer> counts, Map<String, Long> sums) {}

    private final Expected expected = new Expected(new TreeMap<>(), new TreeMap<>());
    private final Random random = new Random(20261129L);

    private void produce(KafkaProducer<byte[], byte[]> producer, int records) {
        for (int i = 0; i < records; i++) {
            long amount = 1 + random.nextInt(100);
            String user = "user-" + random.nextInt(USERS);
            String bucket = StreamsEosApp.bucketOf(amount);
            expected.counts.merge(bucket, 1, Integer::sum);
            expected.sums.merge(bucket, amount, Long::sum);
            producer.send(new ProducerRecord<>(
                    input,
                    user.getBytes(),
                    ByteBuffer.allocate(8).putLong(amount).array()));
        }
        producer.flush();
    }

    /** Every update of every bucket's sum, in output order, read read_committed up to the last stable offset. */
    private Map<String, List<Long>> committedOutput() {
        Map<String, List<Long>> out = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                TxnClients.consumer(shared.broker().bootstrap(), TxnClients.READ_COMMITTED, Map.of())) {
            for (ConsumerRecord<byte[], byte[]> r : ClientSupport.readAll(consumer, output, OUTPUT_PARTITIONS)) {
                out.computeIfAbsent(new String(r.key()), k -> new ArrayList<>())
                        .add(ByteBuffer.wrap(r.value()).getLong());
            }
        }
        return out;
    }

    private Map<String, Integer> updateCounts(Map<String, List<Long>> output) {
        Map<String, Integer> counts = new TreeMap<>();
        output.forEach((bucket, updates) -> counts.put(bucket, updates.size()));
        return counts;
    }

    private Process startChild(Path stateDir) throws Exception {
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                StreamsEosApp.class.getName(),
                shared.broker().bootstrap(),
                applicationId,
                stateDir.toString(),
                input,
                output,
                protocol);
        Files.createDirectories(stateDir);
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(
                        workDir.resolve("child-" + System.nanoTime() + ".log").toFile())
                .start();
    }

    private int groupMembers() throws Exception {
        if (protocol.equals("streams")) {
            return shared.admin()
                    .describeStreamsGroups(List.of(applicationId))
                    .all()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                    .get(applicationId)
                    .members()
                    .size();
        }
        return shared.admin()
                .describeConsumerGroups(List.of(applicationId))
                .all()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .get(applicationId)
                .members()
                .size();
    }

    /**
     * Under the streams protocol, the broker's assignment once stable: each member's active tasks
     * ("subtopology_partition"), by process id; empty while the group is not stable.
     */
    private Map<String, List<String>> stableActiveTasksByProcess() throws Exception {
        StreamsGroupDescription d = shared.admin()
                .describeStreamsGroups(List.of(applicationId))
                .all()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .get(applicationId);
        Map<String, List<String>> byProcess = new TreeMap<>();
        if (d.groupState() != GroupState.STABLE) {
            return byProcess;
        }
        for (StreamsGroupMemberDescription m : d.members()) {
            for (StreamsGroupMemberAssignment.TaskIds t : m.assignment().activeTasks()) {
                t.partitions().forEach(p -> byProcess
                        .computeIfAbsent(m.processId(), k -> new ArrayList<>())
                        .add(t.subtopologyId() + "_" + p));
            }
        }
        return byProcess;
    }

    private static List<String> allTasks(Map<String, List<String>> byProcess) {
        List<String> all = new ArrayList<>();
        byProcess.values().forEach(all::addAll);
        return all;
    }

    private static void kill(Process p) throws InterruptedException {
        p.destroyForcibly();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "streams"})
    void anExactlyOnceAggregationEqualsTheReferenceAlsoWhenAnInstanceIsKilledAndRestarted(String groupProtocol)
            throws Exception {
        protocol = groupProtocol;
        input = "streams-amounts-" + protocol;
        output = "streams-sums-" + protocol;
        applicationId = "varve-eos-sums-" + protocol;
        createTopic(shared.admin(), input, INPUT_PARTITIONS);
        createTopic(shared.admin(), output, OUTPUT_PARTITIONS);
        Path childState = workDir.resolve("state-child");
        try (KafkaProducer<byte[], byte[]> producer = shared.broker().producer(Map.of());
                KafkaStreams inTest = new KafkaStreams(
                        StreamsEosApp.topology(input, output),
                        StreamsEosApp.config(
                                shared.broker().bootstrap(), applicationId, workDir.resolve("state-main"), protocol))) {
            produce(producer, RECORDS_PER_PHASE);
            inTest.start();
            Process child = startChild(childState);
            try {
                await().atMost(TIMEOUT)
                        .pollInterval(Duration.ofMillis(200))
                        .ignoreExceptions()
                        .until(() -> groupMembers() == 4);
                if (protocol.equals("streams")) {
                    // The broker's sticky assignor shares the 8 tasks (2 subtopologies x 4 partitions) between
                    // the two instances, each task active on exactly one member.
                    await().atMost(TIMEOUT)
                            .pollInterval(Duration.ofMillis(200))
                            .ignoreExceptions()
                            .until(() -> {
                                Map<String, List<String>> tasks = stableActiveTasksByProcess();
                                return tasks.size() == 2
                                        && allTasks(tasks).size() == 8
                                        && new java.util.HashSet<>(allTasks(tasks)).size() == 8
                                        && tasks.values().stream().allMatch(t -> t.size() == 4);
                            });
                }
                await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(200)).until(() -> !committedOutput()
                        .isEmpty());
                produce(producer, RECORDS_PER_PHASE);
                // Abruptly, mid-run: its open transactions are aborted, its tasks move to the other instance.
                kill(child);
                if (protocol.equals("streams")) {
                    // Fenced after the broker's session timeout, the child's tasks all go to this instance.
                    await().atMost(TIMEOUT)
                            .pollInterval(Duration.ofMillis(200))
                            .ignoreExceptions()
                            .until(() -> {
                                Map<String, List<String>> tasks = stableActiveTasksByProcess();
                                return groupMembers() == 2
                                        && tasks.size() == 1
                                        && new java.util.HashSet<>(allTasks(tasks)).size() == 8;
                            });
                }
                produce(producer, RECORDS_PER_PHASE);
                child = startChild(childState);
                produce(producer, RECORDS_PER_PHASE);

                await().atMost(Duration.ofSeconds(90))
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> updateCounts(committedOutput()).equals(expected.counts()));
            } finally {
                kill(child);
            }
        }
        Map<String, List<Long>> output = committedOutput();
        assertThat(updateCounts(output))
                .as("one update per input record: nothing lost, nothing twice")
                .isEqualTo(expected.counts());
        Map<String, Long> finalSums = new HashMap<>();
        output.forEach((bucket, updates) -> {
            assertThat(updates)
                    .as("the sum of %s only rises", bucket)
                    .isSorted()
                    .doesNotHaveDuplicates();
            finalSums.put(bucket, updates.get(updates.size() - 1));
        });
        assertThat(finalSums).isEqualTo(expected.sums());
    }
}

package io.varve.bench.scenario;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.varve.bench.BenchOptions;
import io.varve.bench.BrokerKind;
import io.varve.bench.ChildProcesses;
import io.varve.bench.Figure;
import io.varve.bench.HeapHistogram;
import io.varve.bench.Measurement;
import io.varve.bench.RunningBroker;
import io.varve.bench.Scenario;
import io.varve.bench.ScenarioContext;
import io.varve.bench.Topics;

/**
 * (10) and (11): one node holding 10,000 and 50,000 partitions (issue 19). Creates them as topics of 5,000 partitions,
 * one CreateTopics request each (Kafka refuses more records per request: "excessively large batch operation"), and
 * times that until every partition has a leader; counts the broker's open descriptors then and after a round trip
 * (one record into every partition, each read back, by the harness's own driver); then stops the broker cleanly and
 * times the restart until Metadata shows every partition led again. Peak RSS covers the whole run of the first process.
 */
public final class PartitionScale implements Scenario {

    static final Figure CREATE = Figure.lower("create topic until every partition has a leader", "ms", 1.0);
    static final Figure FDS_CREATED = Figure.lower("open descriptors after creation", "fds", 1.0);
    static final Figure FDS_ROUND_TRIP = Figure.lower("open descriptors after the round trip", "fds", 1.0);
    static final Figure PRODUCE = Figure.lower("produce one record into every partition", "ms", null);
    static final Figure CONSUME = Figure.lower("read every partition back from offset 0", "ms", null);
    static final Figure RESTART = Figure.lower("restart until Metadata shows every partition led", "ms", null);
    static final Figure RSS = new Figure("broker peak RSS (VmHWM)", "MiB", Figure.Better.LOWER, 0.5);
    /** What the heap must hold for this many partitions (issue 18: 10,000 in at most 1 GiB). */
    static final Figure LIVE_HEAP = Figure.lower("live heap after the round trip (jmap -histo:live)", "MiB", null);
    private static final Pattern RESULT =
            Pattern.compile("RESULT ok=(true|false) produce_ms=(-?\\d+) consume_ms=(-?\\d+)");

    private static final int PARTITIONS_PER_TOPIC = 5000;

    private final int number;
    private final int fullPartitions;

    public PartitionScale(int number, int fullPartitions) {
        this.number = number;
        this.fullPartitions = fullPartitions;
    }

    @Override
    public int number() {
        return number;
    }

    @Override
    public String title() {
        return "One node holding " + fullPartitions + " partitions (descriptors, memory, creation, round trip, restart)";
    }

    private int partitions(ScenarioContext context) {
        return context.smoke() ? fullPartitions / 100 : fullPartitions;
    }

    @Override
    public String setup(BenchOptions.Sizes sizes) {
        return fullPartitions / PARTITIONS_PER_TOPIC + " topics of " + PARTITIONS_PER_TOPIC + " partitions, one"
                + " CreateTopics request each, replication factor 1; one 100-byte record into every"
                + " partition (acks=all, own driver) and each read back; clean stop; restart";
    }

    @Override
    public Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception {
        int partitions = partitions(context);
        int perTopic = Math.min(partitions, PARTITIONS_PER_TOPIC);
        List<String> topics = new java.util.ArrayList<>();
        for (int i = 0; i < partitions / perTopic; i++) {
            topics.add("bench-scale-" + label + "-" + i);
        }
        RunningBroker broker = context.freshBroker(kind, label);
        Measurement measurement = new Measurement();
        int total;
        try {
            long createMillis = 0;
            for (String topic : topics) {
                createMillis += Topics.create(broker, topic, perTopic);
            }
            measurement.put(CREATE, createMillis);
            total = broker.probe().metadata().partitions();
            measurement.put(FDS_CREATED, openDescriptors(broker.pid()));
            ChildProcesses.Outcome outcome = context.tools().runTool(label + "-round-trip",
                    "io.varve.bench.driver.PartitionRoundTrip",
                    List.of(broker.bootstrap(), String.join(",", topics), Integer.toString(perTopic), "900"),
                    Duration.ofMinutes(16));
            Matcher m = RESULT.matcher(outcome.output());
            if (!m.find() || !"true".equals(m.group(1))) {
                throw new IOException("PartitionRoundTrip did not complete; log " + outcome.logFile() + ":\n"
                        + outcome.tail(8));
            }
            measurement.put(PRODUCE, Long.parseLong(m.group(2)));
            measurement.put(CONSUME, Long.parseLong(m.group(3)));
            measurement.put(FDS_ROUND_TRIP, openDescriptors(broker.pid()));
            measurement.put(RSS, broker.peakRssBytes() / ScenarioContext.MIB);
            // after the RSS reading: the histogram's full collection must not count in the peak
            measurement.put(LIVE_HEAP, HeapHistogram.liveBytes(context.launcher().brokerJdkTool("jmap"), broker.pid(),
                    context.workDir().resolve("logs").resolve(label + "-heap-histogram.txt"), context.workDir())
                    / ScenarioContext.MIB);
        } catch (Exception e) {
            context.finish(broker);
            throw e;
        }
        broker.stop();
        RunningBroker restarted = context.restartBroker(kind, label + "-restart");
        try {
            measurement.put(RESTART, restarted.awaitMetadata(ScenarioContext.READY_TIMEOUT,
                    s -> s.partitionsWithLeader() >= total, "show " + total + " partitions with a leader"));
        } finally {
            context.finish(restarted);
        }
        return measurement;
    }

    private static long openDescriptors(long pid) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return fds.count();
        }
    }
}

package io.varve.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kafka's own perf tools from the kafka-tools jar, each run as its own JVM with a bounded runtime, and
 * parsers for the result lines they print. A run that fails or prints no result line throws
 * {@link ToolFailure} carrying the tool's last lines.
 */
public final class PerfTools {

    /** ProducerPerformance's final line. Latencies in ms; MiB as the tool computes it (bytes / 2^20). */
    public record ProducerResult(long records, double recordsPerSec, double mibPerSec, double avgLatencyMs,
                                 double maxLatencyMs, double p50Ms, double p95Ms, double p99Ms, double p999Ms) {
    }

    /** ConsumerPerformance's result row. "fetch" figures leave out the time the consumer spent joining its group. */
    public record ConsumerResult(double mib, long records, double mibPerSec, double rebalanceMs, double fetchMs,
                                 double fetchMibPerSec, double fetchRecordsPerSec) {
    }

    /** EndToEndLatency's summary, in ms: one record at a time, produced and then consumed. */
    public record EndToEndResult(double avgMs, double p50Ms, double p99Ms, double p999Ms) {
    }

    /** A tool that failed or printed no result; {@link #unsupported()} when the broker lacks an API it needs. */
    public static final class ToolFailure extends IOException {
        private final boolean unsupported;

        ToolFailure(String message, boolean unsupported) {
            super(message);
            this.unsupported = unsupported;
        }

        public boolean unsupported() {
            return unsupported;
        }
    }

    private static final String TOOLS = "org.apache.kafka.tools.";
    private static final Pattern PRODUCER_LINE = Pattern.compile(
            "(\\d+) records sent, ([\\d.]+) records/sec \\(([\\d.]+) MB/sec\\), ([\\d.]+) ms avg latency, "
                    + "([\\d.]+) ms max latency, (\\d+) ms 50th, (\\d+) ms 95th, (\\d+) ms 99th, (\\d+) ms 99\\.9th");
    private static final Pattern E2E_AVG = Pattern.compile("Avg latency: ([\\d.]+) ms");
    private static final Pattern E2E_PERCENTILES = Pattern.compile(
            "Percentiles: 50th = (\\d+), 99th = (\\d+), 99\\.9th = (\\d+)");
    private static final Pattern UNSUPPORTED = Pattern.compile("(?i)[^\\n]*does not support[^\\n]*");

    private final BenchOptions options;

    public PerfTools(BenchOptions options) {
        this.options = options;
    }

    /** Produces {@code records} records of {@code recordSize} bytes; {@code ratePerSec} -1 means as fast as it can. */
    public ProducerResult produce(String label, String bootstrap, String topic, long records, int recordSize,
                                  int ratePerSec, Map<String, String> producerProps) throws IOException {
        return produce(label, bootstrap, topic, records, recordSize, ratePerSec, producerProps, null);
    }

    /**
     * As above, with the client settings in {@code clientConfig} ({@code --command-config}, Kafka 4.2 and later; 4.4
     * calls {@code --producer.config} deprecated: TLS, SASL), if not null.
     */
    public ProducerResult produce(String label, String bootstrap, String topic, long records, int recordSize,
                                  int ratePerSec, Map<String, String> producerProps, Path clientConfig)
            throws IOException {
        List<String> args = new ArrayList<>(List.of("--topic", topic, "--num-records", Long.toString(records),
                "--record-size", Integer.toString(recordSize), "--throughput", Integer.toString(ratePerSec)));
        if (clientConfig != null) {
            args.addAll(List.of("--command-config", clientConfig.toString()));
        }
        args.addAll(List.of("--producer-props", "bootstrap.servers=" + bootstrap));
        producerProps.forEach((key, value) -> args.add(key + "=" + value));
        ChildProcesses.Outcome outcome = runTool(label + "-producer-perf", TOOLS + "ProducerPerformance", args,
                boundFor(records, ratePerSec));
        MatchResult last = null;
        Matcher m = PRODUCER_LINE.matcher(outcome.output());
        while (m.find()) {
            last = m.toMatchResult();  // intermediate progress lines lack the percentiles; the last one is the total
        }
        if (last == null) {
            throw failure("ProducerPerformance", outcome);
        }
        return new ProducerResult(Long.parseLong(last.group(1)), d(last, 2), d(last, 3), d(last, 4), d(last, 5),
                d(last, 6), d(last, 7), d(last, 8), d(last, 9));
    }

    /** Consumes {@code records} records from the start of {@code topic} in consumer group {@code group}. */
    public ConsumerResult consume(String label, String bootstrap, String topic, long records, String group)
            throws IOException {
        return consume(label, bootstrap, topic, records, group, null);
    }

    /**
     * As above, with the client settings in {@code clientConfig} ({@code --command-config}, Kafka 4.2 and later:
     * TLS, SASL), if not null.
     */
    public ConsumerResult consume(String label, String bootstrap, String topic, long records, String group,
                                  Path clientConfig) throws IOException {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", bootstrap, "--topic", topic, "--messages",
                Long.toString(records), "--group", group, "--timeout", "15000"));
        if (clientConfig != null) {
            args.addAll(List.of("--command-config", clientConfig.toString()));
        }
        ChildProcesses.Outcome outcome = runTool(label + "-consumer-perf", TOOLS + "ConsumerPerformance", args,
                boundFor(records, -1));
        String[] lines = outcome.output().split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].startsWith("start.time, end.time")) {
                String[] f = lines[i + 1].split(",\\s*");
                if (f.length >= 10 && isNumber(f[2])) {
                    ConsumerResult result = new ConsumerResult(Double.parseDouble(f[2]), Long.parseLong(f[4]),
                            Double.parseDouble(f[3]), Double.parseDouble(f[6]), Double.parseDouble(f[7]),
                            Double.parseDouble(f[8]), Double.parseDouble(f[9]));
                    if (result.records() < records) {
                        throw new ToolFailure("ConsumerPerformance read " + result.records() + " of " + records
                                + " records; log " + outcome.logFile(), false);
                    }
                    return result;
                }
            }
        }
        throw failure("ConsumerPerformance", outcome);
    }

    /** Sends {@code messages} records one at a time and times each until the consumer sees it. */
    public EndToEndResult endToEnd(String label, String bootstrap, String topic, int messages, String acks,
                                   int recordSize) throws IOException {
        List<String> args = List.of(bootstrap, topic, Integer.toString(messages), acks, Integer.toString(recordSize));
        ChildProcesses.Outcome outcome = runTool(label + "-end-to-end", TOOLS + "EndToEndLatency", args,
                Duration.ofSeconds(60 + messages / 20));
        Matcher avg = E2E_AVG.matcher(outcome.output());
        Matcher pct = E2E_PERCENTILES.matcher(outcome.output());
        // The tool may exit non-zero on close (it asks for a group coordinator) after printing its result.
        if (!avg.find() || !pct.find()) {
            throw failure("EndToEndLatency", outcome);
        }
        return new EndToEndResult(Double.parseDouble(avg.group(1)), Double.parseDouble(pct.group(1)),
                Double.parseDouble(pct.group(2)), Double.parseDouble(pct.group(3)));
    }

    /** Runs {@code mainClass} from the Kafka jars (plus the harness's own classes) in a JVM of its own. */
    public ChildProcesses.Outcome runTool(String label, String mainClass, List<String> args, Duration timeout)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(BrokerLauncher.javaBinary());
        command.addAll(BrokerLauncher.splitOptions(options.toolJvmOpts()));
        command.add("-Dlog4j2.configurationFile=" + options.benchDir().resolve("config/tools-log4j2.properties"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));  // harness classes + Kafka's jars
        command.add(mainClass);
        command.addAll(args);
        Path log = options.workDir().resolve("logs").resolve(label + ".log");
        return ChildProcesses.run(command, options.workDir(), log, timeout);
    }

    /** Generous but finite: a minute, plus a millisecond a record (or the paced duration, doubled). */
    private static Duration boundFor(long records, int ratePerSec) {
        long seconds = 60 + records / 1000;
        if (ratePerSec > 0) {
            seconds = Math.max(seconds, 60 + 2 * records / ratePerSec);
        }
        return Duration.ofSeconds(seconds);
    }

    private static ToolFailure failure(String tool, ChildProcesses.Outcome outcome) {
        Matcher unsupported = UNSUPPORTED.matcher(outcome.output());
        if (unsupported.find()) {
            return new ToolFailure(tool + ": " + unsupported.group().trim(), true);
        }
        String why = outcome.timedOut() ? "timed out after " + outcome.elapsedMillis() / 1000 + " s"
                : "exit code " + outcome.exitCode() + ", no result line";
        return new ToolFailure(tool + " " + why + "; log " + outcome.logFile() + ":\n" + outcome.tail(8), false);
    }

    private static double d(MatchResult m, int group) {
        return Double.parseDouble(m.group(group));
    }

    private static boolean isNumber(String s) {
        try {
            Double.parseDouble(s);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}

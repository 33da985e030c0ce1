package io.varve.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The harness's command line. {@code bench/run} passes the paths; people pass the rest. */
public final class BenchOptions {

    /** How much work each scenario does; the smoke sizes only prove the harness runs end to end. */
    public record Sizes(int produceRecords, int warmupRecords, int latencyRatePerSec, int latencyRecords,
                        int endToEndMessages, int consumeRecords, int fleetPartitions, int fleetRecordsPerPartition,
                        int fleetRatePerSec, int producerConnections, int manyProducersRatePerSec,
                        int manyProducersSeconds, int txnRecords, int txnSingleRecordTransactions,
                        int txnPhaseMaxSeconds) {

        static Sizes full() {
            return new Sizes(1_000_000, 100_000, 10_000, 1_200_000, 10_000, 1_000_000, 1_000, 20, 1_000, 200, 10_000, 30,
                    200_000, 5_000, 20);
        }

        static Sizes smoke() {
            return new Sizes(10_000, 0, 1_000, 3_000, 100, 10_000, 50, 10, 1_000, 20, 500, 3, 10_000, 50, 20);
        }

        Sizes withProduceRecords(int records) {
            return new Sizes(records, warmupRecords, latencyRatePerSec, latencyRecords, endToEndMessages, records,
                    fleetPartitions, fleetRecordsPerPartition, fleetRatePerSec, producerConnections,
                    manyProducersRatePerSec, manyProducersSeconds, txnRecords, txnSingleRecordTransactions,
                    txnPhaseMaxSeconds);
        }
    }

    public static final List<Integer> ALL_SCENARIOS = List.of(1, 2, 3, 4, 5, 6, 7, 8, 9);
    /**
     * Run only when named: (10) and (11) hold 10,000 and 50,000 partitions (tens of minutes with Kafka), (12) runs three
     * brokers of each kind, (13) fetch sessions on and off, (14) needs Kafka 4.2+ tools (--command-config), (15)
     * measures Varve alone with and without a /metrics scraper, (16) creates a topic on three brokers of each kind.
     */
    static final List<Integer> NAMED_ONLY_SCENARIOS = List.of(10, 11, 12, 13, 14, 15, 16);
    static final List<Integer> SMOKE_SCENARIOS = List.of(1, 2, 3, 4, 8);
    static final String DEFAULT_BROKER_JVM_OPTS = "-Xms1g -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20 "
            + "-XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true";
    static final String DEFAULT_TOOL_JVM_OPTS = "-Xmx512m -XX:+UseG1GC";
    static final String SMOKE_JVM_OPTS = "-XX:TieredStopAtLevel=1";

    boolean smoke;
    boolean record;
    boolean keepData;
    int runs;
    List<Integer> scenarios;
    Sizes sizes;
    Path root;
    Path benchDir;
    Path workDir;
    /** Where the brokers' data directories go: bench/work/data unless --data-dir names another (a tmpfs, say). */
    Path dataDir;
    Path kafkaLibs;
    String kafkaVersion = "unknown";
    String varveClasspath;
    /** What Varve's own launcher adds (bin/varve-launch.sh): the class-data-sharing archive, when there is one. */
    String varveLauncherOpts = "";
    String brokerJvmOpts = DEFAULT_BROKER_JVM_OPTS;
    String toolJvmOpts = DEFAULT_TOOL_JVM_OPTS;
    /** The java both brokers run on (--broker-java); the harness's own JVM when null. The tools stay on the default. */
    String brokerJava;
    /** --compare: the run to compare this one with (a results file or a RESULTS.md heading), or null. */
    String compareBaseline;
    /** --current: compare this recorded run with the baseline instead of running one. */
    String compareCurrent;
    double compareFloorFraction = io.varve.bench.compare.RunComparison.DEFAULT_FLOOR_FRACTION;

    public boolean smoke() {
        return smoke;
    }

    public int runs() {
        return runs;
    }

    public Sizes sizes() {
        return sizes;
    }

    public Path workDir() {
        return workDir;
    }

    public Path dataDir() {
        return dataDir;
    }

    public Path benchDir() {
        return benchDir;
    }

    public Path kafkaLibs() {
        return kafkaLibs;
    }

    public String toolJvmOpts() {
        return toolJvmOpts;
    }

    static final String USAGE = String.join("\n",
            "usage: bench/run [--smoke] [--scenarios 1,2,3] [--runs N] [--record] [--records N]",
            "                 [--broker-jvm-opts \"...\"] [--broker-java PATH] [--keep-data] [--data-dir DIR]",
            "                 [--compare BASELINE [--current RUN] [--compare-floor PCT]] [--no-build]",
            "  --smoke            tiny sizes, 1 run, scenarios 1,2,3,4,8: proves the harness works (< 2 min)",
            "  --scenarios LIST   which scenarios to run (default: all, 1-9; 7 is reported inside every other;"
                    + " 10 and 11, 10,000 and 50,000 partitions on one node, 12, three brokers with replication"
                    + " factor 3, 13, fetch sessions on and off, 14, SSL and SASL_SSL (Kafka 4.2+ tools), 15, the"
                    + " cost of a /metrics scraper on Varve, and 16, creating a topic at replication factor 3 on three"
                    + " brokers, run only when named)",
            "  --runs N           A/B rounds per scenario (default 3; smoke 1); medians are over these",
            "  --record           also add the run's tables to bench/RESULTS.md",
            "  --records N        records per produce/consume run (default 1,000,000)",
            "  --broker-jvm-opts  JVM options for BOTH brokers (default: " + DEFAULT_BROKER_JVM_OPTS + ")",
            "  --keep-data        keep each broker's data directory under bench/work/data after a run",
            "  --data-dir DIR     put the brokers' data directories under DIR instead of bench/work/data (for"
                    + " example a tmpfs such as /dev/shm/varve-bench, to take the disk's writeback out of an A/B"
                    + " comparison of CPU costs; the report says so)",
            "  --broker-java PATH run BOTH brokers on this java (e.g. a JDK 25's bin/java; Varve with that JDK's own",
            "                     class-data archive, an AOT cache from JDK 25 on); the tools stay on the default java",
            "  --compare BASELINE compare this run with a recorded one and exit 3 when a figure got worse by more than",
            "                     the noise of both: a results .json (bench/results/, bench/work/), a markdown report,",
            "                     FILE.md#heading, or a heading of bench/RESULTS.md (e.g. \"2026-11-29 19:08\")",
            "  --current RUN      with --compare: compare the recorded run RUN (same forms) instead of running one",
            "  --compare-floor P  the smallest change flagged, in % of the baseline's median (default "
                    + Math.round(io.varve.bench.compare.RunComparison.DEFAULT_FLOOR_FRACTION * 100) + ")",
            "  --no-build         (bench/run only) use Varve's existing build instead of running mvn package");

    static BenchOptions parse(String[] args) {
        BenchOptions options = new BenchOptions();
        Integer runs = null;
        Integer records = null;
        List<Integer> scenarios = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--smoke" -> options.smoke = true;
                case "--record" -> options.record = true;
                case "--keep-data" -> options.keepData = true;
                case "--data-dir" -> options.dataDir = Path.of(value(args, ++i, arg)).toAbsolutePath().normalize();
                case "--runs" -> runs = positive(arg, value(args, ++i, arg));
                case "--records" -> records = positive(arg, value(args, ++i, arg));
                case "--scenarios" -> scenarios = scenarioList(value(args, ++i, arg));
                case "--broker-jvm-opts" -> options.brokerJvmOpts = value(args, ++i, arg);
                case "--tool-jvm-opts" -> options.toolJvmOpts = value(args, ++i, arg);
                case "--broker-java" -> options.brokerJava = value(args, ++i, arg);
                case "--compare" -> options.compareBaseline = value(args, ++i, arg);
                case "--current" -> options.compareCurrent = value(args, ++i, arg);
                case "--compare-floor" -> options.compareFloorFraction = percent(arg, value(args, ++i, arg));
                case "--root" -> options.root = Path.of(value(args, ++i, arg)).toAbsolutePath().normalize();
                case "--kafka-libs" -> options.kafkaLibs = Path.of(value(args, ++i, arg)).toAbsolutePath().normalize();
                case "--kafka-version" -> options.kafkaVersion = value(args, ++i, arg);
                case "--varve-classpath" -> options.varveClasspath = value(args, ++i, arg);
                case "--varve-launcher-opts" -> options.varveLauncherOpts = value(args, ++i, arg);
                case "-h", "--help" -> throw new UsageException(null);
                default -> throw new UsageException("unknown option " + arg);
            }
        }
        if (options.root == null || options.kafkaLibs == null || options.varveClasspath == null) {
            throw new UsageException("--root, --kafka-libs and --varve-classpath are required (bench/run passes them)");
        }
        if (options.smoke && options.record) {
            throw new UsageException("--record keeps full runs only: smoke figures are not benchmarks");
        }
        if (options.compareCurrent != null && options.compareBaseline == null) {
            throw new UsageException("--current names the run to compare with --compare BASELINE; --compare is missing");
        }
        if (options.brokerJava != null && !java.nio.file.Files.isExecutable(Path.of(options.brokerJava))) {
            throw new UsageException("--broker-java " + options.brokerJava + " is not an executable java");
        }
        options.benchDir = options.root.resolve("bench");
        options.workDir = options.benchDir.resolve("work");
        if (options.dataDir == null) {
            options.dataDir = options.workDir.resolve("data");
        }
        options.runs = runs != null ? runs : (options.smoke ? 1 : 3);
        options.scenarios = scenarios != null ? scenarios : (options.smoke ? SMOKE_SCENARIOS : ALL_SCENARIOS);
        if (options.smoke) {
            // Smoke runs prove the harness, not speed: C1 alone costs the busy 2-core machine less CPU.
            options.brokerJvmOpts += " " + SMOKE_JVM_OPTS;
            options.toolJvmOpts += " " + SMOKE_JVM_OPTS;
        }
        Sizes sizes = options.smoke ? Sizes.smoke() : Sizes.full();
        options.sizes = records != null ? sizes.withProduceRecords(records) : sizes;
        return options;
    }

    private static double percent(String option, String text) {
        try {
            double value = Double.parseDouble(text);
            if (value >= 0 && value < 1000) {
                return value / 100;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new UsageException(option + " needs a percentage (0 or more), not " + text);
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length) {
            throw new UsageException(option + " needs a value");
        }
        return args[index];
    }

    private static int positive(String option, String value) {
        try {
            int n = Integer.parseInt(value.replace("_", "").replace(",", ""));
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through to the one-sentence error
        }
        throw new UsageException(option + " needs a positive whole number, not '" + value + "'");
    }

    private static List<Integer> scenarioList(String value) {
        List<Integer> list = new ArrayList<>();
        for (String part : value.split(",")) {
            int n = positive("--scenarios", part.trim());
            if (!ALL_SCENARIOS.contains(n) && !NAMED_ONLY_SCENARIOS.contains(n)) {
                throw new UsageException("--scenarios takes numbers from 1 to 16, not " + n);
            }
            if (!list.contains(n)) {
                list.add(n);
            }
        }
        list.sort(null);
        return list;
    }

    /** A bad command line: one sentence, then the usage. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }
}

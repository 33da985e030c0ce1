package io.varve.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.varve.bench.compare.RunRecord;
import io.varve.bench.scenario.ConsumeThroughput;
import io.varve.bench.scenario.FetchSessionCost;
import io.varve.bench.scenario.ManyPartitions;
import io.varve.bench.scenario.ManyProducerConnections;
import io.varve.bench.scenario.PartitionScale;
import io.varve.bench.scenario.ProduceLatency;
import io.varve.bench.scenario.MetricsCost;
import io.varve.bench.scenario.ProduceThroughput;
import io.varve.bench.scenario.ReplicatedCluster;
import io.varve.bench.scenario.ReplicatedCreation;
import io.varve.bench.scenario.SecuredThroughput;
import io.varve.bench.scenario.Startup;
import io.varve.bench.scenario.TransactionThroughput;

/**
 * Entry point of {@code bench/run}: runs the chosen scenarios in alternating Kafka/Varve rounds, prints
 * each scenario's table as it completes, and writes bench/work/results-DATE.md (and, with --record,
 * bench/RESULTS.md). Exits 1 when any run could not be measured at all, 2 on a bad command line.
 */
public final class Bench {

    private Bench() {
    }

    static Scenario scenario(int number) {
        return switch (number) {
            case 1 -> new ProduceThroughput(1, "all");
            case 2 -> new ProduceThroughput(2, "1");
            case 3 -> new ProduceLatency();
            case 4 -> new ConsumeThroughput();
            case 5 -> new ManyPartitions();
            case 6 -> new ManyProducerConnections();
            case 8 -> new Startup();
            case 9 -> new TransactionThroughput();
            case 10 -> new PartitionScale(10, 10_000);
            case 11 -> new PartitionScale(11, 50_000);
            case 12 -> new ReplicatedCluster();
            case 13 -> new FetchSessionCost();
            case 14 -> new SecuredThroughput();
            case 15 -> new MetricsCost();
            case 16 -> new ReplicatedCreation();
            default -> throw new IllegalArgumentException("no scenario " + number);
        };
    }

    public static void main(String[] args) throws Exception {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (BenchOptions.UsageException e) {
            if (e.getMessage() != null) {
                System.err.println("bench: " + e.getMessage());
            }
            System.err.println(BenchOptions.USAGE);
            System.exit(e.getMessage() == null ? 0 : 2);
            return;
        }
        System.exit(run(options));
    }

    static int run(BenchOptions options) throws Exception {
        LocalDateTime started = LocalDateTime.now().withNano(0);
        String fileDate = started.format(DateTimeFormatter.ISO_LOCAL_DATE_TIME).replace(':', '-');
        RunRecord baseline = null;
        if (options.compareBaseline != null) {
            try {
                baseline = RunRecords.load(options.compareBaseline, options);
                if (options.compareCurrent != null) {
                    return RunRecords.compare(baseline, RunRecords.load(options.compareCurrent, options), options,
                            fileDate);
                }
            } catch (java.io.IOException e) {
                System.err.println("bench: " + e.getMessage());
                return 2;
            }
            System.out.println("bench: comparing with " + baseline.label() + " when the run is done");
        }
        String loadAtStart = MachineInfo.loadAverage();
        Map<String, String> machine = MachineInfo.describe(options);
        Path logs = Files.createDirectories(options.workDir.resolve("logs"));
        try (var old = Files.list(logs)) {
            for (Path log : old.filter(p -> p.toString().endsWith(".log")).toList()) {
                Files.delete(log);  // the logs directory holds the latest run only
            }
        }
        ChildProcesses.recordPidsIn(options.workDir.resolve("children.pids"));
        ScenarioContext context = new ScenarioContext(options, new BrokerLauncher(options), new PerfTools(options));
        System.out.println("bench: " + (options.smoke ? "SMOKE run (tiny sizes; figures are not benchmarks)" : "run")
                + ", scenarios " + options.scenarios + ", " + options.runs + " round(s), load average " + loadAtStart
                + "; logs in " + options.workDir.resolve("logs"));

        List<ScenarioResult> results = new ArrayList<>();
        boolean harnessFailed = false;
        for (int number : options.scenarios) {
            if (number == 7) {
                continue;  // (7) is measured inside every other scenario and summarised at the end
            }
            Scenario scenario = scenario(number);
            ScenarioResult result = new ScenarioResult(number, scenario.title(), scenario.setup(options.sizes));
            for (int round = 1; round <= options.runs; round++) {
                for (BrokerKind kind : BrokerKind.values()) {
                    String label = "s" + number + "-r" + round + "-" + kind.dirName();  // names logs and topics
                    long t0 = System.nanoTime();
                    System.out.print("(" + number + ") round " + round + "/" + options.runs + " " + kind.displayName()
                            + " ... ");
                    System.out.flush();
                    try {
                        Measurement measurement = scenario.measure(context, kind, label);
                        result.add(kind, measurement);
                        System.out.println(seconds(t0) + ": " + measurement.summary());
                    } catch (Exception e) {
                        harnessFailed = true;
                        result.failed(kind, round, String.valueOf(e.getMessage()));
                        System.out.println(seconds(t0) + ": FAILED: " + e.getMessage());
                    }
                }
            }
            results.add(result);
            System.out.println();
            System.out.println(Report.table(result));
        }

        context.close();
        String date = started.format(DateTimeFormatter.ISO_LOCAL_DATE_TIME);
        StringBuilder report = new StringBuilder(Report.header(date.replace('T', ' '), options, machine, loadAtStart,
                MachineInfo.loadAverage()));
        for (ScenarioResult result : results) {
            report.append(Report.table(result));
        }
        if (options.scenarios.contains(7) && !results.isEmpty()) {
            String summary = Report.resourceSummary(results);
            report.append(summary);
            System.out.println(summary);
        }
        Path resultsFile = options.workDir.resolve("results-" + fileDate + ".md");
        Files.writeString(resultsFile, "# Varve vs Apache Kafka, bench/run\n\n" + report);
        System.out.println("bench: wrote " + resultsFile);
        if (options.record) {
            Report.record(options.benchDir.resolve("RESULTS.md"), report.toString());
            System.out.println("bench: recorded the run in " + options.benchDir.resolve("RESULTS.md"));
        }
        Map<String, String> about = new java.util.LinkedHashMap<>(machine);
        about.put("load average at start", loadAtStart);
        RunRecord run = RunRecords.of(Report.runLabel(date.replace('T', ' '), options), options, about, results);
        RunRecords.write(run, resultsFile, options, fileDate);
        if (harnessFailed) {
            return 1;
        }
        return baseline == null ? 0 : RunRecords.compare(baseline, run, options, fileDate);
    }

    private static String seconds(long startNanos) {
        return String.format(java.util.Locale.ROOT, "%.1f s", (System.nanoTime() - startNanos) / 1e9);
    }
}

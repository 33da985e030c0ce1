package io.varve.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import io.varve.bench.compare.Samples;

/** Renders results as markdown: one table per scenario, the machine, and the caveats. */
final class Report {

    /** bench/RESULTS.md: each recorded run goes right below this line, newest first. */
    static final String RECORD_MARKER = "<!-- bench/run --record inserts runs below this line, newest first -->";
    private static final int NOTE_WIDTH = 60;

    private Report() {
    }

    static String number(double value) {
        return Samples.format(value);
    }

    /** The run's heading, which also names it for --compare: "Run of 2026-12-01 22:48:02" (" — SMOKE"). */
    static String runLabel(String date, BenchOptions options) {
        return "Run of " + date + (options.smoke ? " — SMOKE" : "");
    }

    static String header(String date, BenchOptions options, Map<String, String> machine, String loadAtStart,
                         String loadAtEnd) {
        StringBuilder md = new StringBuilder();
        md.append("## ").append(runLabel(date, options)).append("\n\n");
        if (options.smoke) {
            md.append("> **Smoke mode: tiny sizes, one round. These figures prove the harness runs; they are not "
                    + "benchmarks** (JVM warm-up dominates runs this short, and one broker per kind serves every "
                    + "scenario, so peak RSS includes the scenarios before it).\n\n");
        }
        md.append("> Load average (1/5/15 min) at start: ").append(loadAtStart).append("; at end: ").append(loadAtEnd)
                .append(" on ").append(Runtime.getRuntime().availableProcessors()).append(" cores. ");
        // The load at the end is the benchmark's own (brokers and tools on every core); only the load before
        // the first broker started says whether something else was running.
        double oneMinuteAtStart = firstNumber(loadAtStart);
        md.append("The load at the end is the benchmark's own (brokers and tools). ");
        md.append(Double.isNaN(oneMinuteAtStart) || oneMinuteAtStart < 1.0
                ? "Ratios from one run hold only if nothing else ran during it.\n\n"
                : "**The machine was not idle when the run started: unless what ran before had ended, treat every "
                        + "figure, and even the ratios, as noise.**\n\n");
        md.append("Command: `bench/run").append(options.smoke ? " --smoke" : "")
                .append(" --scenarios ").append(options.scenarios.stream().map(String::valueOf)
                        .collect(Collectors.joining(",")))
                .append(" --runs ").append(options.runs).append("`; rounds alternate Kafka, Varve, Kafka, Varve …; "
                        + "each cell is the median over rounds")
                .append(options.smoke ? "; smoke mode keeps one broker per kind for all scenarios.\n\n"
                        : ", each run on a freshly started broker with an empty data directory.\n\n");
        md.append("| | |\n|---|---|\n");
        machine.forEach((key, value) -> md.append("| ").append(key).append(" | ").append(value).append(" |\n"));
        md.append('\n');
        return md.toString();
    }

    static String table(ScenarioResult result) {
        StringBuilder md = new StringBuilder();
        md.append("### (").append(result.number()).append(") ").append(result.title()).append("\n\n");
        md.append(result.setup()).append(".\n\n");
        md.append("| figure | unit | Kafka | Varve | Varve/Kafka | target | verdict |\n");
        md.append("|---|---|---:|---:|---:|---|---|\n");
        List<String> notes = new ArrayList<>();
        for (ScenarioResult.Row row : result.rows()) {
            Double ratio = row.ratio();
            md.append("| ").append(row.figure().name())
                    .append(" | ").append(row.figure().unit())
                    .append(" | ").append(cell(row.kafkaMedian(), row.kafkaNote(), notes))
                    .append(" | ").append(cell(row.varveMedian(), row.varveNote(), notes))
                    .append(" | ").append(ratio == null ? "—" : String.format(Locale.ROOT, "%.2f×", ratio))
                    .append(" | ").append(row.figure().targetText())
                    .append(" | ").append(row.verdict())
                    .append(" |\n");
        }
        md.append('\n');
        for (String note : notes) {
            md.append("- ").append(note).append('\n');
        }
        for (String failure : result.failures()) {
            md.append("- **harness failure** ").append(failure.replace("\n", " / ")).append('\n');
        }
        md.append(samples(result));
        return md.toString();
    }

    private static String cell(Double median, String note, List<String> notes) {
        if (median != null) {
            return number(median);
        }
        if (note == null) {
            return "—";
        }
        if (note.length() <= NOTE_WIDTH) {
            return note;
        }
        notes.add(note);
        return note.substring(0, NOTE_WIDTH) + "… (see below)";
    }

    private static String samples(ScenarioResult result) {
        StringBuilder md = new StringBuilder("\n<details><summary>every run</summary>\n\n");
        for (ScenarioResult.Row row : result.rows()) {
            md.append("- ").append(row.figure().name()).append(": Kafka ").append(list(row.kafkaSamples()))
                    .append(", Varve ").append(list(row.varveSamples())).append('\n');
        }
        return md.append("\n</details>\n\n").toString();
    }

    private static String list(List<Double> values) {
        return values.stream().map(Report::number).collect(Collectors.joining(", ", "[", "]"));
    }

    /** A short cross-scenario view of (7), whose figures sit inside every other scenario's table. */
    static String resourceSummary(List<ScenarioResult> results) {
        StringBuilder md = new StringBuilder("### (7) Broker peak RSS and CPU per GiB moved, all scenarios\n\n");
        md.append("| scenario | figure | Kafka | Varve | Varve/Kafka | target | verdict |\n");
        md.append("|---|---|---:|---:|---:|---|---|\n");
        for (ScenarioResult result : results) {
            for (ScenarioResult.Row row : result.rows()) {
                if (row.figure() == Figure.PEAK_RSS || row.figure() == Figure.CPU_PER_GIB) {
                    Double ratio = row.ratio();
                    md.append("| (").append(result.number()).append(") | ").append(row.figure().name())
                            .append(" ").append(row.figure().unit())
                            .append(" | ").append(row.kafkaMedian() == null ? "—" : number(row.kafkaMedian()))
                            .append(" | ").append(row.varveMedian() == null ? "—" : number(row.varveMedian()))
                            .append(" | ").append(ratio == null ? "—" : String.format(Locale.ROOT, "%.2f×", ratio))
                            .append(" | ").append(row.figure().targetText())
                            .append(" | ").append(row.verdict()).append(" |\n");
                }
            }
        }
        return md.append('\n').toString();
    }

    /** Inserts {@code run} into bench/RESULTS.md below the marker line (appending the marker if it is missing). */
    static void record(Path resultsFile, String run) throws IOException {
        String text = Files.exists(resultsFile) ? Files.readString(resultsFile) : "# Benchmark results\n\n";
        int at = text.indexOf(RECORD_MARKER);
        if (at < 0) {
            text = text + (text.endsWith("\n") ? "" : "\n") + "\n" + RECORD_MARKER + "\n";
            at = text.indexOf(RECORD_MARKER);
        }
        int insertAt = at + RECORD_MARKER.length();
        Files.writeString(resultsFile, text.substring(0, insertAt) + "\n\n" + run.trim() + "\n" + text.substring(insertAt));
    }

    private static double firstNumber(String loadAverages) {
        try {
            return Double.parseDouble(loadAverages.trim().split("\\s+")[0]);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}

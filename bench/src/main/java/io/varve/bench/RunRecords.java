package io.varve.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.varve.bench.compare.Baselines;
import io.varve.bench.compare.Better;
import io.varve.bench.compare.ComparisonReport;
import io.varve.bench.compare.RunComparison;
import io.varve.bench.compare.RunJson;
import io.varve.bench.compare.RunRecord;

/**
 * The harness's side of {@code --compare}: turns a run's results into a {@link RunRecord}, writes it as JSON beside the
 * markdown report (and under bench/results/ with --record), and compares it with the baseline.
 */
final class RunRecords {

    /** Exit code of a run whose comparison flagged a figure (1 is a harness failure, 2 a bad command line). */
    static final int REGRESSION_EXIT_CODE = 3;

    private RunRecords() {
    }

    static RunRecord of(String label, BenchOptions options, Map<String, String> about, List<ScenarioResult> results) {
        List<RunRecord.ScenarioRecord> scenarios = new ArrayList<>();
        for (ScenarioResult result : results) {
            List<RunRecord.FigureRecord> figures = new ArrayList<>();
            for (ScenarioResult.Row row : result.rows()) {
                figures.add(new RunRecord.FigureRecord(row.figure().name(), row.figure().unit(),
                        row.figure().better() == Figure.Better.HIGHER ? Better.HIGHER : Better.LOWER,
                        row.kafkaSamples(), row.varveSamples()));
            }
            scenarios.add(new RunRecord.ScenarioRecord(result.number(), result.title(), figures));
        }
        Map<String, String> context = new LinkedHashMap<>(about);
        context.put("runs", Integer.toString(options.runs));
        return new RunRecord(label, options.smoke, context, scenarios);
    }

    /** Loads the baseline (and --current) before anything runs, so that a wrong name fails in a second, not later. */
    static RunRecord load(String spec, BenchOptions options) throws IOException {
        try {
            return Baselines.load(spec, options.benchDir.resolve("RESULTS.md"));
        } catch (IllegalArgumentException e) {
            throw new IOException("--compare " + spec + ": " + e.getMessage(), e);
        }
    }

    /** bench/work/results-DATE.json always; bench/results/DATE.json too when the run is recorded. */
    static void write(RunRecord run, Path markdownReport, BenchOptions options, String fileDate) throws IOException {
        String json = RunJson.write(run);
        Path beside = markdownReport.resolveSibling(markdownReport.getFileName().toString().replaceAll("\\.md$", "")
                + ".json");
        Files.writeString(beside, json);
        System.out.println("bench: wrote " + beside);
        if (options.record) {
            Path kept = Files.createDirectories(options.benchDir.resolve("results")).resolve(fileDate + ".json");
            Files.writeString(kept, json);
            System.out.println("bench: recorded the run's samples in " + kept + " (commit it: a later --compare "
                    + "can name it)");
        }
    }

    /** Prints the comparison, writes it to bench/work/compare-DATE.md and returns the exit code it calls for. */
    static int compare(RunRecord baseline, RunRecord current, BenchOptions options, String fileDate)
            throws IOException {
        RunComparison.Result result = RunComparison.compare(baseline, current, options.compareFloorFraction);
        String report = ComparisonReport.markdown(result, options.compareFloorFraction);
        System.out.println();
        System.out.println(report);
        Path file = options.workDir.resolve("compare-" + fileDate + ".md");
        Files.writeString(file, report);
        System.out.println("bench: wrote " + file);
        return result.regressed() ? REGRESSION_EXIT_CODE : 0;
    }
}

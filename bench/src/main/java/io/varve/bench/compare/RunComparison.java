package io.varve.bench.compare;

import io.varve.bench.compare.RunRecord.FigureRecord;
import io.varve.bench.compare.RunRecord.ScenarioRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Compares a run with a baseline run, figure by figure, and flags what got worse by more than the noise of the two
 * runs. Two checks per figure present in both: Varve's own median, and the Varve/Kafka ratio (from each round's
 * pair), which stays put when the whole machine got slower. Pure: records in, a result out.
 *
 * <p>The noise allowance of a check is half the spread (largest minus smallest sample) of the baseline's rounds plus
 * half the spread of the current run's rounds, i.e. the two medians' intervals must not overlap; it is never less than
 * {@code floorFraction} of the baseline's median (a run of one round, or rounds that agree by chance, has no spread to
 * speak of), and figures the tools report in whole units (latency in ms) get one unit more, their resolution.
 */
public final class RunComparison {

    /** How much worse than the baseline's median a figure may get before it is flagged, at least. */
    public static final double DEFAULT_FLOOR_FRACTION = 0.05;

    /** The summary line names at most this many WORSE checks (the table has them all). */
    static final int SUMMARY_NAMES = 8;

    /** What one check found. */
    public enum Verdict {
        WORSE,
        BETTER,
        SAME,
        /** Missing on one side, or no known direction. */
        NOT_COMPARED
    }

    /** The subject of a check: Varve's own figure, or its ratio to Kafka's. */
    public enum Subject {
        VARVE("Varve"),
        RATIO("Varve/Kafka");

        private final String text;

        Subject(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }
    }

    /**
     * One figure of one scenario, one subject.
     *
     * @param change signed fraction, current vs baseline median (positive = larger), null when not compared
     * @param kafkaChange Kafka's own change on the VARVE row (context: the machine may have moved), else null
     */
    public record Check(
            int scenario,
            String figure,
            String unit,
            Subject subject,
            List<Double> baseline,
            List<Double> current,
            Double change,
            double allowance,
            Double kafkaChange,
            Verdict verdict,
            String note) {

        public Double baselineMedian() {
            return Samples.median(baseline);
        }

        public Double currentMedian() {
            return Samples.median(current);
        }
    }

    /** Every check, and what could not be compared at all. */
    public record Result(String baselineLabel, String currentLabel, List<String> warnings, List<Check> checks) {

        public List<Check> worse() {
            return checks.stream().filter(c -> c.verdict() == Verdict.WORSE).toList();
        }

        public boolean regressed() {
            return !worse().isEmpty();
        }

        public long count(Verdict verdict) {
            return checks.stream().filter(c -> c.verdict() == verdict).count();
        }

        /** One line: how many checks of each verdict, and which figures got worse. */
        public String summary() {
            String line = String.format(
                    Locale.ROOT,
                    "compare: %d worse, %d better, %d within noise, %d not compared",
                    count(Verdict.WORSE),
                    count(Verdict.BETTER),
                    count(Verdict.SAME),
                    count(Verdict.NOT_COMPARED));
            if (!regressed()) {
                return line;
            }
            List<Check> worse = worse();
            String names = worse.stream()
                    .limit(SUMMARY_NAMES)
                    .map(c -> "(" + c.scenario() + ") " + c.figure() + " ["
                            + c.subject().text() + "]")
                    .collect(Collectors.joining("; "));
            return line + " — WORSE: " + names
                    + (worse.size() > SUMMARY_NAMES ? "; and " + (worse.size() - SUMMARY_NAMES) + " more" : "");
        }
    }

    private RunComparison() {}

    public static Result compare(RunRecord baseline, RunRecord current) {
        return compare(baseline, current, DEFAULT_FLOOR_FRACTION);
    }

    public static Result compare(RunRecord baseline, RunRecord current, double floorFraction) {
        if (floorFraction < 0 || Double.isNaN(floorFraction)) {
            throw new IllegalArgumentException("the floor is a fraction of the baseline, >= 0: " + floorFraction);
        }
        List<String> warnings = new ArrayList<>();
        if (baseline.smoke() != current.smoke()) {
            warnings.add((current.smoke()
                            ? "this run is a smoke run and the baseline is not"
                            : "the baseline is a smoke run and this run is not")
                    + ": sizes differ, so most figures cannot be compared meaningfully");
        }
        List<Check> checks = new ArrayList<>();
        for (ScenarioRecord scenario : current.scenarios()) {
            ScenarioRecord before = baseline.scenario(scenario.number()).orElse(null);
            if (before == null) {
                warnings.add("scenario " + scenario.number() + " is not in the baseline");
                continue;
            }
            for (FigureRecord figure : scenario.figures()) {
                FigureRecord old = before.figure(figure.name()).orElse(null);
                if (old == null) {
                    warnings.add("(" + scenario.number() + ") " + figure.name() + " is not in the baseline");
                    continue;
                }
                Better better = figure.better() != null ? figure.better() : old.better();
                checks.add(check(
                        scenario.number(),
                        figure,
                        Subject.VARVE,
                        old.varve(),
                        figure.varve(),
                        better,
                        floorFraction,
                        change(old.kafka(), figure.kafka())));
                List<Double> oldRatios = ratios(old);
                List<Double> newRatios = ratios(figure);
                if (!oldRatios.isEmpty() || !newRatios.isEmpty()) {
                    checks.add(check(
                            scenario.number(),
                            figure,
                            Subject.RATIO,
                            oldRatios,
                            newRatios,
                            better,
                            floorFraction,
                            null));
                }
            }
            for (FigureRecord old : before.figures()) {
                if (scenario.figure(old.name()).isEmpty()) {
                    warnings.add(
                            "(" + scenario.number() + ") " + old.name() + " was measured in the baseline, not now");
                }
            }
        }
        List<Integer> notRun = baseline.scenarios().stream()
                .map(ScenarioRecord::number)
                .filter(n -> current.scenario(n).isEmpty())
                .toList();
        if (!notRun.isEmpty()) {
            warnings.add("baseline scenarios not run now: " + notRun);
        }
        return new Result(baseline.label(), current.label(), warnings, checks);
    }

    private static Check check(
            int scenario,
            FigureRecord figure,
            Subject subject,
            List<Double> before,
            List<Double> now,
            Better better,
            double floorFraction,
            Double kafkaChange) {
        Double oldMedian = Samples.median(before);
        Double newMedian = Samples.median(now);
        if (oldMedian == null || newMedian == null) {
            String missing = oldMedian == null && newMedian == null
                    ? "no figure in either run"
                    : oldMedian == null ? "no figure in the baseline" : "no figure in this run";
            return new Check(
                    scenario,
                    figure.name(),
                    figure.unit(),
                    subject,
                    before,
                    now,
                    null,
                    0,
                    kafkaChange,
                    Verdict.NOT_COMPARED,
                    missing);
        }
        Double change = oldMedian == 0 ? null : (newMedian - oldMedian) / Math.abs(oldMedian);
        double allowance = allowance(before, now, oldMedian, floorFraction, subject);
        if (better == null) {
            return new Check(
                    scenario,
                    figure.name(),
                    figure.unit(),
                    subject,
                    before,
                    now,
                    change,
                    allowance,
                    kafkaChange,
                    Verdict.NOT_COMPARED,
                    "which way is better is unknown");
        }
        double worseBy = better == Better.HIGHER ? oldMedian - newMedian : newMedian - oldMedian;
        Verdict verdict = worseBy > allowance ? Verdict.WORSE : -worseBy > allowance ? Verdict.BETTER : Verdict.SAME;
        String note = before.size() < 2 || now.size() < 2
                ? "one round on a side: its spread is unknown, the floor stands in for it"
                : "";
        return new Check(
                scenario,
                figure.name(),
                figure.unit(),
                subject,
                before,
                now,
                change,
                allowance,
                kafkaChange,
                verdict,
                note);
    }

    static double allowance(
            List<Double> before, List<Double> now, double oldMedian, double floorFraction, Subject subject) {
        double noise = Samples.spread(before) / 2 + Samples.spread(now) / 2;
        double floor = floorFraction * Math.abs(oldMedian);
        // Latency in whole milliseconds moves in steps of one: a step is the resolution, not a regression.
        double resolution = subject == Subject.VARVE && Samples.allWhole(before) && Samples.allWhole(now) ? 1 : 0;
        return Math.max(noise, floor) + resolution;
    }

    /**
     * Varve/Kafka per round when both brokers have a sample for every round (rounds alternate the brokers, so a
     * round's pair saw the same minute of the machine); otherwise the ratio of the medians, or none.
     */
    static List<Double> ratios(FigureRecord figure) {
        List<Double> kafka = figure.kafka();
        List<Double> varve = figure.varve();
        if (kafka.isEmpty() || varve.isEmpty()) {
            return List.of();
        }
        List<Double> ratios = new ArrayList<>();
        if (kafka.size() == varve.size()) {
            for (int i = 0; i < kafka.size(); i++) {
                if (kafka.get(i) != 0) {
                    ratios.add(varve.get(i) / kafka.get(i));
                }
            }
            return ratios;
        }
        double kafkaMedian = Samples.median(kafka);
        return kafkaMedian == 0 ? List.of() : List.of(Samples.median(varve) / kafkaMedian);
    }

    private static Double change(List<Double> before, List<Double> now) {
        Double oldMedian = Samples.median(before);
        Double newMedian = Samples.median(now);
        if (oldMedian == null || newMedian == null || oldMedian == 0) {
            return null;
        }
        return (newMedian - oldMedian) / Math.abs(oldMedian);
    }
}

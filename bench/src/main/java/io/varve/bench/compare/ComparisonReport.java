package io.varve.bench.compare;

import io.varve.bench.compare.RunComparison.Check;
import io.varve.bench.compare.RunComparison.Result;
import io.varve.bench.compare.RunComparison.Subject;
import io.varve.bench.compare.RunComparison.Verdict;
import java.util.List;
import java.util.Locale;

/** Renders a comparison as markdown: the rule, one row per check, the warnings and the one-line summary. */
public final class ComparisonReport {

    private ComparisonReport() {}

    public static String markdown(Result result, double floorFraction) {
        StringBuilder md = new StringBuilder();
        md.append("## Compared with ").append(result.baselineLabel()).append("\n\n");
        md.append("This run: ")
                .append(result.currentLabel())
                .append(". A check is **WORSE** when its median moved the "
                        + "wrong way by more than its allowance: half the spread (max − min) of the baseline's rounds "
                        + "plus half the spread of this run's, at least ")
                .append(String.format(Locale.ROOT, "%.0f %%", floorFraction * 100))
                .append(" of the baseline's median, plus one unit for figures in whole units. `Varve` rows compare "
                        + "Varve's own figure (Kafka's change beside it says whether the machine moved too); "
                        + "`Varve/Kafka` rows compare the ratio from each round's pair.\n\n");
        md.append(
                "| scenario | figure | unit | | baseline | this run | change | allowance | Kafka's change | verdict |\n");
        md.append("|---|---|---|---|---:|---:|---:|---:|---:|---|\n");
        for (Check check : result.checks()) {
            md.append("| (")
                    .append(check.scenario())
                    .append(") | ")
                    .append(check.figure())
                    .append(" | ")
                    .append(check.subject() == Subject.RATIO ? "×" : check.unit())
                    .append(" | ")
                    .append(check.subject().text())
                    .append(" | ")
                    .append(samples(check.baseline()))
                    .append(" | ")
                    .append(samples(check.current()))
                    .append(" | ")
                    .append(percent(check.change()))
                    .append(" | ")
                    .append(check.verdict() == Verdict.NOT_COMPARED ? "—" : "± " + Samples.format(check.allowance()))
                    .append(" | ")
                    .append(percent(check.kafkaChange()))
                    .append(" | ")
                    .append(verdict(check))
                    .append(" |\n");
        }
        md.append('\n');
        for (String warning : result.warnings()) {
            md.append("- ").append(warning).append('\n');
        }
        List<String> notes = result.checks().stream()
                .filter(c -> c.verdict() != Verdict.NOT_COMPARED) // those say why in their row
                .map(Check::note)
                .filter(n -> !n.isEmpty())
                .distinct()
                .toList();
        for (String note : notes) {
            md.append("- ").append(note).append('\n');
        }
        md.append('\n').append(result.summary()).append("\n");
        return md.toString();
    }

    /** "45.1 [43.0–47.2]": the median and, for several rounds, their range. */
    static String samples(List<Double> values) {
        Double median = Samples.median(values);
        if (median == null) {
            return "—";
        }
        if (values.size() < 2) {
            return Samples.format(median);
        }
        double min = values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        return Samples.format(median) + " [" + Samples.format(min) + "–" + Samples.format(max) + "]";
    }

    private static String percent(Double fraction) {
        return fraction == null ? "—" : String.format(Locale.ROOT, "%+.1f %%", fraction * 100);
    }

    private static String verdict(Check check) {
        return switch (check.verdict()) {
            case WORSE -> "**WORSE**";
            case BETTER -> "better";
            case SAME -> "within noise";
            case NOT_COMPARED -> "n/a" + (check.note().isEmpty() ? "" : " (" + check.note() + ")");
        };
    }
}

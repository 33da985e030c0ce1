package io.varve.bench.compare;

import static io.varve.bench.compare.Runs.latency;
import static io.varve.bench.compare.Runs.run;
import static io.varve.bench.compare.Runs.throughput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.bench.compare.RunComparison.Check;
import io.varve.bench.compare.RunComparison.Result;
import io.varve.bench.compare.RunComparison.Subject;
import io.varve.bench.compare.RunComparison.Verdict;
import io.varve.bench.compare.RunRecord.FigureRecord;
import io.varve.bench.compare.RunRecord.ScenarioRecord;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunComparisonTest {

    private static final List<Double> KAFKA = List.of(100.0, 100.0, 100.0);

    @Test
    void aThroughputDropBeyondTheSpreadOfBothRunsIsFlaggedWorse() {
        Result result = RunComparison.compare(
                run("before", throughput(KAFKA, List.of(100.0, 105.0, 110.0))),
                run("after", throughput(KAFKA, List.of(80.0, 82.0, 85.0))));

        Check varve = check(result, Subject.VARVE);
        assertThat(varve.verdict()).isEqualTo(Verdict.WORSE);
        assertThat(varve.allowance())
                .isEqualTo(10.0 / 2 + 5.0 / 2 + 0.0 + 1, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(varve.change()).isCloseTo(-0.219, org.assertj.core.data.Offset.offset(0.001));
        assertThat(result.regressed()).isTrue();
        assertThat(result.summary()).contains("WORSE: (1) produce throughput [Varve]");
    }

    @Test
    void aDropWithinTheSpreadOfTheRoundsIsNoise() {
        Result result = RunComparison.compare(
                run("before", throughput(KAFKA, List.of(100.0, 120.0, 110.0))),
                run("after", throughput(KAFKA, List.of(98.0, 104.0, 106.0))));

        assertThat(check(result, Subject.VARVE).verdict()).isEqualTo(Verdict.SAME);
        assertThat(result.regressed()).isFalse();
    }

    @Test
    void aLatencyThatRoseIsWorseAndOneThatFellIsBetterBecauseLowerIsBetter() {
        FigureRecord before = latency(KAFKA, List.of(10.5, 11.0, 10.0));

        assertThat(check(
                                RunComparison.compare(
                                        run("a", before), run("b", latency(KAFKA, List.of(20.5, 21.0, 22.5)))),
                                Subject.VARVE)
                        .verdict())
                .isEqualTo(Verdict.WORSE);
        assertThat(check(
                                RunComparison.compare(
                                        run("a", before), run("b", latency(KAFKA, List.of(5.5, 6.0, 5.0)))),
                                Subject.VARVE)
                        .verdict())
                .isEqualTo(Verdict.BETTER);
    }

    @Test
    void oneStepOfAFigureInWholeUnitsIsItsResolutionNotARegression() {
        Result oneStep = RunComparison.compare(
                run("a", latency(KAFKA, List.of(2.0, 2.0, 2.0))), run("b", latency(KAFKA, List.of(3.0, 3.0, 3.0))));
        Result twoSteps = RunComparison.compare(
                run("a", latency(KAFKA, List.of(2.0, 2.0, 2.0))), run("b", latency(KAFKA, List.of(4.0, 4.0, 4.0))));

        assertThat(check(oneStep, Subject.VARVE).verdict()).isEqualTo(Verdict.SAME);
        assertThat(check(twoSteps, Subject.VARVE).verdict()).isEqualTo(Verdict.WORSE);
    }

    @Test
    void runsOfOneRoundFallBackOnTheFloorAndSaySo() {
        RunRecord before = run("a", throughput(List.of(100.5), List.of(100.5)));

        Check within = check(
                RunComparison.compare(before, run("b", throughput(List.of(100.5), List.of(96.5)))), Subject.VARVE);
        Check beyond = check(
                RunComparison.compare(before, run("b", throughput(List.of(100.5), List.of(90.5)))), Subject.VARVE);

        assertThat(within.verdict()).isEqualTo(Verdict.SAME);
        assertThat(within.allowance()).isCloseTo(0.05 * 100.5, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(beyond.verdict()).isEqualTo(Verdict.WORSE);
        assertThat(beyond.note()).contains("one round");
    }

    @Test
    void theFloorIsTheCallersChoice() {
        RunRecord before = run("a", throughput(List.of(100.5), List.of(100.5)));
        RunRecord after = run("b", throughput(List.of(100.5), List.of(96.5)));

        assertThat(check(RunComparison.compare(before, after, 0.01), Subject.VARVE)
                        .verdict())
                .isEqualTo(Verdict.WORSE);
        assertThatThrownBy(() -> RunComparison.compare(before, after, -0.1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMachineThatGotSlowerForBothBrokersMovesVarvesFigureButNotTheRatio() {
        Result result = RunComparison.compare(
                run("quiet", throughput(KAFKA, List.of(120.0, 121.0, 119.0))),
                run("busy", throughput(List.of(80.0, 80.0, 80.0), List.of(96.0, 97.0, 95.0))));

        Check varve = check(result, Subject.VARVE);
        assertThat(varve.verdict()).isEqualTo(Verdict.WORSE);
        assertThat(varve.kafkaChange()).isCloseTo(-0.20, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(check(result, Subject.RATIO).verdict()).isEqualTo(Verdict.SAME);
    }

    @Test
    void theRatioIsWorseWhenVarveFellBehindAKafkaThatStayedPut() {
        Result result = RunComparison.compare(
                run("a", throughput(KAFKA, List.of(120.0, 121.0, 119.0))),
                run("b", throughput(KAFKA, List.of(100.0, 101.0, 99.0))));

        Check ratio = check(result, Subject.RATIO);
        assertThat(ratio.baseline()).containsExactly(1.2, 1.21, 1.19);
        assertThat(ratio.verdict()).isEqualTo(Verdict.WORSE);
    }

    @Test
    void roundsThatCannotBePairedGiveTheRatioOfTheMedians() {
        FigureRecord figure = throughput(List.of(100.0, 110.0), List.of(150.0));

        assertThat(RunComparison.ratios(figure)).containsExactly(150.0 / 105.0);
        assertThat(RunComparison.ratios(throughput(List.of(), List.of(150.0)))).isEmpty();
    }

    @Test
    void whatOnlyOneRunHasIsNotComparedAndIsNamed() {
        RunRecord before = new RunRecord(
                "a",
                false,
                Map.of(),
                List.of(
                        new ScenarioRecord(
                                1,
                                "produce",
                                List.of(
                                        throughput(KAFKA, List.of()),
                                        new FigureRecord("dropped figure", "ms", Better.LOWER, KAFKA, KAFKA))),
                        new ScenarioRecord(5, "many partitions", List.of(latency(KAFKA, KAFKA)))));
        RunRecord after = new RunRecord(
                "b",
                false,
                Map.of(),
                List.of(
                        new ScenarioRecord(
                                1,
                                "produce",
                                List.of(
                                        throughput(List.of(), List.of(100.0)),
                                        new FigureRecord("new figure", "ms", Better.LOWER, KAFKA, KAFKA))),
                        new ScenarioRecord(9, "transactions", List.of(latency(KAFKA, KAFKA)))));

        Result result = RunComparison.compare(before, after);

        assertThat(result.checks()).hasSize(1); // Varve only: Kafka has no figure now, so there is no ratio
        assertThat(result.checks().get(0).verdict()).isEqualTo(Verdict.NOT_COMPARED);
        assertThat(result.checks().get(0).note()).isEqualTo("no figure in the baseline");
        assertThat(result.warnings())
                .containsExactlyInAnyOrder(
                        "(1) new figure is not in the baseline",
                        "(1) dropped figure was measured in the baseline, not now",
                        "scenario 9 is not in the baseline",
                        "baseline scenarios not run now: [5]");
        assertThat(result.regressed()).isFalse();
    }

    @Test
    void aSmokeRunComparedWithAFullOneIsWarnedAbout() {
        RunRecord full = run("full", throughput(KAFKA, KAFKA));
        RunRecord smoke = new RunRecord("smoke", true, Map.of(), full.scenarios());

        assertThat(RunComparison.compare(full, smoke).warnings())
                .anySatisfy(w -> assertThat(w).startsWith("this run is a smoke run"));
    }

    @Test
    void theDirectionComesFromTheBaselineWhenTheRunDoesNotKnowItAndNoDirectionMeansNoVerdict() {
        FigureRecord known = latency(KAFKA, List.of(10.0, 10.0, 10.0));
        FigureRecord unknown = new FigureRecord("produce p99", "ms", null, KAFKA, List.of(30.0, 30.0, 30.0));
        FigureRecord unknownBefore = new FigureRecord("produce p99", "ms", null, KAFKA, List.of(10.0, 10.0, 10.0));

        assertThat(check(RunComparison.compare(run("a", known), run("b", unknown)), Subject.VARVE)
                        .verdict())
                .isEqualTo(Verdict.WORSE);
        Check neither = check(RunComparison.compare(run("a", unknownBefore), run("b", unknown)), Subject.VARVE);
        assertThat(neither.verdict()).isEqualTo(Verdict.NOT_COMPARED);
        assertThat(neither.note()).contains("which way is better");
    }

    @Test
    void theReportShowsEveryCheckTheRuleAndTheSummary() {
        Result result = RunComparison.compare(
                run("Run of A", throughput(KAFKA, List.of(100.0, 105.0, 110.0))),
                run("Run of B", throughput(KAFKA, List.of(80.0, 82.0, 85.0))));

        String md = ComparisonReport.markdown(result, 0.05);

        assertThat(md)
                .contains("## Compared with Run of A", "at least 5 %")
                .contains("| (1) | produce throughput | MiB/s | Varve | 105 [100–110] | 82.0 [80.0–85.0] | -21.9 % |")
                .contains("**WORSE**")
                .endsWith(result.summary() + "\n");
    }

    @Test
    void theSummaryNamesTheFirstWorseChecksAndCountsTheRest() {
        List<FigureRecord> before = new java.util.ArrayList<>();
        List<FigureRecord> after = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            before.add(new FigureRecord("f" + i, "ms", Better.LOWER, List.of(), List.of(10.5)));
            after.add(new FigureRecord("f" + i, "ms", Better.LOWER, List.of(), List.of(20.5)));
        }
        Result result = RunComparison.compare(
                run("a", before.toArray(FigureRecord[]::new)), run("b", after.toArray(FigureRecord[]::new)));

        assertThat(result.summary())
                .startsWith("compare: 10 worse, 0 better, 0 within noise, 0 not compared — WORSE: (1) f0 [Varve]; ")
                .contains("(1) f7 [Varve]")
                .doesNotContain("f8")
                .endsWith("; and 2 more");
    }

    private static Check check(Result result, Subject subject) {
        return result.checks().stream()
                .filter(c -> c.subject() == subject)
                .findFirst()
                .orElseThrow();
    }
}

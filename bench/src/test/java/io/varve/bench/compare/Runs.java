package io.varve.bench.compare;

import io.varve.bench.compare.RunRecord.FigureRecord;
import io.varve.bench.compare.RunRecord.ScenarioRecord;
import java.util.List;
import java.util.Map;

/** Small runs for the tests: one scenario, one figure, the samples given. */
final class Runs {

    private Runs() {}

    static RunRecord run(String label, FigureRecord... figures) {
        return new RunRecord(label, false, Map.of(), List.of(new ScenarioRecord(1, "produce", List.of(figures))));
    }

    static FigureRecord throughput(List<Double> kafka, List<Double> varve) {
        return new FigureRecord("produce throughput", "MiB/s", Better.HIGHER, kafka, varve);
    }

    static FigureRecord latency(List<Double> kafka, List<Double> varve) {
        return new FigureRecord("produce p99", "ms", Better.LOWER, kafka, varve);
    }
}

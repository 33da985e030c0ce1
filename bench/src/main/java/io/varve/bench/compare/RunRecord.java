package io.varve.bench.compare;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Every figure one {@code bench/run} measured, per scenario and broker, with each round's sample (not only the
 * median): the spread of the rounds is what tells a regression from noise.
 *
 * @param label the run's heading, e.g. "Run of 2026-12-01 22:48:02"
 * @param smoke whether it was a smoke run (tiny sizes: its figures are not benchmarks)
 * @param about free-form context: command, git commit, machine, JVM options, load average
 */
public record RunRecord(String label, boolean smoke, Map<String, String> about, List<ScenarioRecord> scenarios) {

    public RunRecord {
        Objects.requireNonNull(label, "label");
        about = Map.copyOf(about);
        scenarios = List.copyOf(scenarios);
    }

    public Optional<ScenarioRecord> scenario(int number) {
        return scenarios.stream().filter(s -> s.number() == number).findFirst();
    }

    /** One scenario's figures. */
    public record ScenarioRecord(int number, String title, List<FigureRecord> figures) {

        public ScenarioRecord {
            figures = List.copyOf(figures);
        }

        public Optional<FigureRecord> figure(String name) {
            return figures.stream().filter(f -> f.name().equals(name)).findFirst();
        }
    }

    /**
     * One figure's samples, one per round, in round order, for each broker (empty when that broker produced none).
     *
     * @param better null when the source did not say (a RESULTS.md section); the run it is compared with does
     */
    public record FigureRecord(String name, String unit, Better better, List<Double> kafka, List<Double> varve) {

        public FigureRecord {
            Objects.requireNonNull(name, "name");
            kafka = List.copyOf(kafka);
            varve = List.copyOf(varve);
        }
    }
}

package io.varve.bench;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Every run's figures of one scenario for both brokers, reduced to medians and Varve/Kafka ratios. */
public final class ScenarioResult {

    /** One row of the scenario's table. */
    public record Row(Figure figure, Double kafkaMedian, Double varveMedian, String kafkaNote, String varveNote,
                      List<Double> kafkaSamples, List<Double> varveSamples) {

        /** Varve/Kafka, or null when either side has no figure. */
        public Double ratio() {
            if (kafkaMedian == null || varveMedian == null || kafkaMedian == 0) {
                return null;
            }
            return varveMedian / kafkaMedian;
        }

        public String verdict() {
            if (figure.targetRatio() == null) {
                return "—";
            }
            Double ratio = ratio();
            if (ratio == null) {
                return "n/a";
            }
            return figure.meetsTarget(ratio) ? "pass" : "FAIL";
        }
    }

    private final int number;
    private final String title;
    private final String setup;
    private final Set<Figure> figures = new LinkedHashSet<>();
    private final Map<BrokerKind, Map<Figure, List<Double>>> samples = new EnumMap<>(BrokerKind.class);
    private final Map<BrokerKind, Map<Figure, String>> notes = new EnumMap<>(BrokerKind.class);
    private final List<String> failures = new ArrayList<>();

    public ScenarioResult(int number, String title, String setup) {
        this.number = number;
        this.title = title;
        this.setup = setup;
        for (BrokerKind kind : BrokerKind.values()) {
            samples.put(kind, new LinkedHashMap<>());
            notes.put(kind, new LinkedHashMap<>());
        }
    }

    public void add(BrokerKind kind, Measurement measurement) {
        measurement.values().forEach((figure, value) -> {
            figures.add(figure);
            samples.get(kind).computeIfAbsent(figure, f -> new ArrayList<>()).add(value);
        });
        measurement.missing().forEach((figure, reason) -> {
            figures.add(figure);
            notes.get(kind).putIfAbsent(figure, reason);
        });
    }

    /** A run that threw: the harness could not measure this broker at all in it. */
    public void failed(BrokerKind kind, int run, String message) {
        failures.add(kind.displayName() + " run " + run + ": " + message);
    }

    public int number() {
        return number;
    }

    public String title() {
        return title;
    }

    public String setup() {
        return setup;
    }

    public List<String> failures() {
        return failures;
    }

    public List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        List<Figure> ordered = new ArrayList<>(figures);
        ordered.sort(java.util.Comparator.comparing(f -> f == Figure.PEAK_RSS || f == Figure.CPU_PER_GIB));  // (7) last
        for (Figure figure : ordered) {
            List<Double> kafka = samples.get(BrokerKind.KAFKA).getOrDefault(figure, List.of());
            List<Double> varve = samples.get(BrokerKind.VARVE).getOrDefault(figure, List.of());
            rows.add(new Row(figure, median(kafka), median(varve), notes.get(BrokerKind.KAFKA).get(figure),
                    notes.get(BrokerKind.VARVE).get(figure), kafka, varve));
        }
        return rows;
    }

    /** The median of the samples (mean of the middle two for an even count), or null for none. */
    static Double median(List<Double> values) {
        return io.varve.bench.compare.Samples.median(values);
    }
}

package io.varve.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The figures one broker produced in one run of one scenario, and those it could not produce, with why. */
public final class Measurement {

    private final Map<Figure, Double> values = new LinkedHashMap<>();
    private final Map<Figure, String> missing = new LinkedHashMap<>();

    public Measurement put(Figure figure, double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(figure.name() + " measured as " + value);
        }
        values.put(figure, value);
        return this;
    }

    /** Marks figures this broker cannot produce in this run, e.g. "unsupported yet (FindCoordinator)". */
    public Measurement missing(List<Figure> figures, String reason) {
        for (Figure figure : figures) {
            missing.put(figure, reason);
        }
        return this;
    }

    public Map<Figure, Double> values() {
        return values;
    }

    public Map<Figure, String> missing() {
        return missing;
    }

    /** One line for the console, e.g. "produce throughput 45.1 MiB/s, ...". */
    public String summary() {
        StringBuilder line = new StringBuilder();
        values.forEach((figure, value) -> {
            if (line.length() > 0) {
                line.append(", ");
            }
            line.append(figure.name()).append(' ').append(Report.number(value)).append(' ').append(figure.unit());
        });
        missing.forEach((figure, reason) -> line.append(line.length() > 0 ? ", " : "")
                .append(figure.name()).append(": ").append(reason));
        return line.toString();
    }
}

package io.varve.bench.compare;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Medians, spreads and the number format the reports use (three significant digits or so). */
public final class Samples {

    private Samples() {}

    /** The median (mean of the middle two for an even count), or null for no samples. */
    public static Double median(List<Double> values) {
        if (values.isEmpty()) {
            return null;
        }
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }

    /** Largest minus smallest sample: how far the rounds of one run fell apart; 0 for fewer than two. */
    public static double spread(List<Double> values) {
        if (values.size() < 2) {
            return 0;
        }
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (double value : values) {
            min = Math.min(min, value);
            max = Math.max(max, value);
        }
        return max - min;
    }

    static boolean allWhole(List<Double> values) {
        for (double value : values) {
            if (value != Math.rint(value)) {
                return false;
            }
        }
        return true;
    }

    /** e.g. 1234 → "1234", 45.06 → "45.1", 0.256 → "0.26". */
    public static String format(double value) {
        double abs = Math.abs(value);
        String pattern = abs >= 100 ? "%.0f" : abs >= 10 ? "%.1f" : "%.2f";
        return String.format(Locale.ROOT, pattern, value);
    }
}

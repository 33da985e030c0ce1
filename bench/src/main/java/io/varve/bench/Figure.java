package io.varve.bench;

import java.util.Locale;

/**
 * One measured quantity of a scenario, which way is better, and the target for the Varve/Kafka
 * ratio where it sets one (null where the figure is informational).
 */
public record Figure(String name, String unit, Better better, Double targetRatio) {

    public enum Better { HIGHER, LOWER }

    /** (7): reported beside every scenario's own figures. */
    public static final Figure PEAK_RSS = new Figure("(7) broker peak RSS (VmHWM)", "MiB", Better.LOWER, 0.6);
    public static final Figure CPU_PER_GIB = new Figure("(7) broker CPU per GiB moved", "CPU s/GiB", Better.LOWER, null);

    public static Figure higher(String name, String unit, Double target) {
        return new Figure(name, unit, Better.HIGHER, target);
    }

    public static Figure lower(String name, String unit, Double target) {
        return new Figure(name, unit, Better.LOWER, target);
    }

    public String targetText() {
        if (targetRatio == null) {
            return "—";
        }
        return (better == Better.HIGHER ? "≥ " : "≤ ") + String.format(Locale.ROOT, "%.1f×", targetRatio);
    }

    public boolean meetsTarget(double ratio) {
        if (targetRatio == null) {
            throw new IllegalStateException(name + " has no target");
        }
        return better == Better.HIGHER ? ratio >= targetRatio : ratio <= targetRatio;
    }
}

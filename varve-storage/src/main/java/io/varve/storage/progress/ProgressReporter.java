package io.varve.storage.progress;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Reports the progress of one long task as a line every {@code intervalMs} while it runs (percent done, the rate since
 * the previous line, the time left at that rate), not only a final line. Thread-safe: several threads may advance one
 * task (logs recovered in parallel); at most one of them writes each line. The clock is injected; lines go to a sink
 * (the caller's logger), so the reporter is pure apart from them.
 *
 * <p>A task that ends before its first interval writes no progress line at all: short work stays quiet, and its caller
 * logs its usual final line.
 */
public final class ProgressReporter {
    /** How often a running task reports, unless told otherwise. */
    public static final long DEFAULT_INTERVAL_MS = 5_000;

    private final String task;
    private final String unit;
    private final LongSupplier clockMs;
    private final long intervalMs;
    private final Consumer<String> sink;
    private final long startMs;
    private final AtomicLong done = new AtomicLong();
    private volatile long total;
    /** When the last line was written (the start before the first), and how much was done then. */
    private final AtomicLong lastLineMs;

    private volatile long doneAtLastLine;
    private volatile int lines;

    private ProgressReporter(
            String task, long total, String unit, LongSupplier clockMs, long intervalMs, Consumer<String> sink) {
        if (intervalMs <= 0) {
            throw new IllegalArgumentException("intervalMs must be positive");
        }
        this.task = task;
        this.total = Math.max(0, total);
        this.unit = unit;
        this.clockMs = clockMs;
        this.intervalMs = intervalMs;
        this.sink = sink;
        this.startMs = clockMs.getAsLong();
        this.lastLineMs = new AtomicLong(startMs);
    }

    /**
     * Starts reporting {@code task} (for example "Recovering log dir /data/1"), which has {@code total} {@code unit}s to
     * do ("partitions", "bytes", "offsets", "segments").
     */
    public static ProgressReporter start(
            String task, long total, String unit, LongSupplier clockMs, long intervalMs, Consumer<String> sink) {
        return new ProgressReporter(task, total, unit, clockMs, intervalMs, sink);
    }

    /** {@code units} more are done; writes a line when the interval passed since the last one. */
    public void advance(long units) {
        done.addAndGet(units);
        maybeReport();
    }

    /**
     * {@code doneUnits} of {@code totalUnits} are done now (a task whose goal moves: a follower catching up with a
     * leader that keeps appending); writes a line when the interval passed.
     */
    public void progressTo(long doneUnits, long totalUnits) {
        total = Math.max(0, totalUnits);
        done.set(doneUnits);
        maybeReport();
    }

    /** Writes a line if the interval passed (a caller's timer, for work that advances in large steps). */
    public void maybeReport() {
        long now = clockMs.getAsLong();
        long last = lastLineMs.get();
        if (now - last >= intervalMs && lastLineMs.compareAndSet(last, now)) {
            long doneNow = done.get();
            long previous = doneAtLastLine;
            doneAtLastLine = doneNow;
            lines++;
            sink.accept(line(doneNow, previous, now - last));
        }
    }

    /** How many progress lines were written (the final one not counted). */
    public int linesWritten() {
        return lines;
    }

    /** Units done so far. */
    public long done() {
        return done.get();
    }

    /**
     * The task ended: when it wrote progress lines, a final one with its duration and mean rate, so the lines do not
     * stop at 95%; otherwise nothing. Returns the milliseconds it took.
     */
    public long finish() {
        long tookMs = clockMs.getAsLong() - startMs;
        if (lines > 0) {
            long doneNow = done.get();
            sink.accept(String.format(
                    Locale.ROOT,
                    "%s: done, %,d %s in %s (%s %s/s)",
                    task,
                    doneNow,
                    unit,
                    duration(tookMs),
                    rate(doneNow, tookMs),
                    unit));
        }
        return tookMs;
    }

    String line(long doneNow, long doneBefore, long sinceMs) {
        long totalNow = total;
        StringBuilder b = new StringBuilder(task).append(": ");
        b.append(String.format(Locale.ROOT, "%,d of %,d %s", doneNow, totalNow, unit));
        if (totalNow > 0) {
            b.append(String.format(
                    Locale.ROOT, " (%.0f%%)", Math.min(100.0, 100.0 * (double) doneNow / (double) totalNow)));
        }
        long delta = doneNow - doneBefore;
        b.append(", ").append(rate(delta, sinceMs)).append(' ').append(unit).append("/s");
        if (delta > 0 && totalNow > doneNow) {
            long leftMs = (long) ((double) (totalNow - doneNow) * sinceMs / delta);
            b.append(", about ").append(duration(leftMs)).append(" left");
        }
        return b.toString();
    }

    private static String rate(long units, long ms) {
        if (ms <= 0) {
            return "0";
        }
        double perSecond = units * 1000.0 / ms;
        return perSecond >= 100
                ? String.format(Locale.ROOT, "%,.0f", perSecond)
                : String.format(Locale.ROOT, "%.1f", perSecond);
    }

    static String duration(long ms) {
        long s = Math.max(0, ms) / 1000;
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return (s / 60) + " min " + (s % 60) + " s";
        }
        return (s / 3600) + " h " + (s % 3600 / 60) + " min";
    }
}

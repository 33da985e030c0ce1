package io.varve.http.metrics;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A value computed at most once per refresh interval: the first read after the value has aged that long computes it
 * again on the reading thread (a scrape), reads in between get the same value. So nothing runs while nobody reads,
 * what a read sees is never older than the interval (plus one computation), and concurrent reads wait for the one
 * computing rather than computing it twice. An interval of 0 computes on every read.
 */
final class Refreshed<T> {
    private final Supplier<T> compute;
    private final long refreshNanos;
    private final LongSupplier nanoClock;
    private T value;
    private long computedAtNanos;

    Refreshed(Supplier<T> compute, long refreshMs, LongSupplier nanoClock) {
        if (refreshMs < 0) {
            throw new IllegalArgumentException("refresh interval must not be negative: " + refreshMs);
        }
        this.compute = compute;
        this.refreshNanos = TimeUnit.MILLISECONDS.toNanos(refreshMs);
        this.nanoClock = nanoClock;
    }

    synchronized T get() {
        long now = nanoClock.getAsLong();
        if (value == null || now - computedAtNanos >= refreshNanos) {
            // the age counts from before the computation: the state it reads is at least that old
            value = compute.get();
            computedAtNanos = now;
        }
        return value;
    }
}

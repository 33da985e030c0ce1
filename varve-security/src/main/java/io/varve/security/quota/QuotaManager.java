package io.varve.security.quota;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One kind of quota (produce bytes, fetch bytes, request time …): per rate a resolved quota names, a {@link
 * SampledRate} over {@code quota.window.num} windows (the rate as Kafka measures and reports it) and a {@link
 * TokenBucket} that decides the throttle time a recording earns: the time its deficit takes to refill at the bound, at
 * most the samples' span. An idle client may send {@code samples - 1} windows' worth at once, as an empty set of
 * sampled windows lets it in Kafka; after that it runs at its quota. Rates idle for longer than the span are dropped.
 * Thread safe: each rate is guarded by itself; times are passed in.
 */
public final class QuotaManager {
    private final int samples;
    private final long windowMs;
    private final Map<Key, Entry> rates = new ConcurrentHashMap<>();
    private volatile long lastSweepMs;

    private record Key(String user, String clientId) {}

    private static final class Entry {
        final SampledRate rate;
        final TokenBucket credit;
        /** The throttle times earned and how many, over the same windows: Kafka's {@code throttle-time} average. */
        final SampledRate throttleMsSum;

        final SampledRate throttles;
        long lastRecordMs;

        Entry(SampledRate rate, TokenBucket credit, int samples, long windowMs, long nowMs) {
            this.rate = rate;
            this.credit = credit;
            this.throttleMsSum = new SampledRate(samples, windowMs, nowMs);
            this.throttles = new SampledRate(samples, windowMs, nowMs);
            this.lastRecordMs = nowMs;
        }
    }

    /** What {@link #forEachRate} reports of one tracked rate. */
    @FunctionalInterface
    public interface RateVisitor {
        /**
         * @param ratePerSecond      the rate the quota limits, now
         * @param throttleTimeAvgMs the mean of the throttle times earned within the windows (0 when none)
         */
        void rate(String userTag, String clientIdTag, double ratePerSecond, double throttleTimeAvgMs);
    }

    /** @param samples {@code quota.window.num}; @param windowMs {@code quota.window.size.seconds} in ms */
    public QuotaManager(int samples, long windowMs) {
        new SampledRate(samples, windowMs, 0); // checks the arguments
        this.samples = samples;
        this.windowMs = windowMs;
    }

    /** Records {@code value} against the quota's rate; the throttle time in ms it earns (0 when within). */
    public long recordAndGetThrottleMs(QuotaResolver.Resolved quota, double value, long nowMs) {
        sweep(nowMs);
        Entry entry = rates.computeIfAbsent(
                new Key(quota.userTag(), quota.clientIdTag()),
                k -> new Entry(
                        new SampledRate(samples, windowMs, nowMs),
                        new TokenBucket((samples - 1) * windowMs, nowMs),
                        samples,
                        windowMs,
                        nowMs));
        synchronized (entry) {
            entry.lastRecordMs = nowMs;
            entry.rate.record(value, nowMs);
            long throttleMs = cap(entry.credit.record(value, quota.bound(), nowMs));
            if (throttleMs > 0) {
                entry.throttleMsSum.record(throttleMs, nowMs);
                entry.throttles.record(1, nowMs);
            }
            return throttleMs;
        }
    }

    /** Reports every rate tracked now (a metrics scrape; rates idle for the samples' span may still be listed). */
    public void forEachRate(long nowMs, RateVisitor visitor) {
        rates.forEach((key, entry) -> {
            double rate;
            double throttleAvgMs;
            synchronized (entry) {
                rate = entry.rate.ratePerSecond(nowMs);
                entry.throttles.ratePerSecond(nowMs); // advances the windows before reading the totals
                entry.throttleMsSum.ratePerSecond(nowMs);
                double count = entry.throttles.total(nowMs);
                throttleAvgMs = count > 0 ? entry.throttleMsSum.total(nowMs) / count : 0;
            }
            visitor.rate(key.user(), key.clientId(), rate, throttleAvgMs);
        });
    }

    /** Takes back a recording whose work was not done after all (a throttled fetch answers without its data). */
    public void unrecord(QuotaResolver.Resolved quota, double value, long nowMs) {
        Entry entry = rates.get(new Key(quota.userTag(), quota.clientIdTag()));
        if (entry != null) {
            synchronized (entry) {
                entry.rate.record(-value, nowMs);
                entry.credit.record(-value, quota.bound(), nowMs);
            }
        }
    }

    /** The throttle the rate has earned so far, without recording (0 when within, or never recorded). */
    public long throttleMs(QuotaResolver.Resolved quota, long nowMs) {
        Entry entry = rates.get(new Key(quota.userTag(), quota.clientIdTag()));
        if (entry == null) {
            return 0;
        }
        synchronized (entry) {
            return cap(entry.credit.throttleMs(quota.bound(), nowMs));
        }
    }

    /** The rate per second the quota limits, now (0 when never recorded). */
    public double ratePerSecond(QuotaResolver.Resolved quota, long nowMs) {
        Entry entry = rates.get(new Key(quota.userTag(), quota.clientIdTag()));
        if (entry == null) {
            return 0;
        }
        synchronized (entry) {
            return entry.rate.ratePerSecond(nowMs);
        }
    }

    /**
     * The most a single response may carry under this quota: what {@code samples - 1} windows allow, so that one
     * response can never earn a throttle longer than the samples' span (Kafka caps fetch sizes the same way).
     */
    public long maxValueInWindows(QuotaResolver.Resolved quota) {
        return Math.max(1, (long) (quota.bound() * (samples - 1) * windowMs / 1000.0));
    }

    int trackedRates() {
        return rates.size();
    }

    private long cap(long throttleMs) {
        return Math.min(throttleMs, samples * windowMs);
    }

    private void sweep(long nowMs) {
        long span = samples * windowMs;
        if (nowMs - lastSweepMs < span) {
            return;
        }
        lastSweepMs = nowMs;
        for (Iterator<Entry> it = rates.values().iterator(); it.hasNext(); ) {
            Entry entry = it.next();
            synchronized (entry) {
                if (nowMs - entry.lastRecordMs > span) {
                    it.remove();
                }
            }
        }
    }
}

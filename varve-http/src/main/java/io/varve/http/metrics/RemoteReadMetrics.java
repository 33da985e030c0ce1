package io.varve.http.metrics;

import java.util.function.LongSupplier;

/**
 * Reads from remote storage: the time of each read ({@code RemoteLogReaderFetchRateAndTimeMs}) and the chunk cache's
 * lookups and misses, read at scrape time from the read service (zero while remote storage is off).
 */
public final class RemoteReadMetrics {
    final Histogram readTimeMs = new Histogram(Histogram.LATENCY_MS);
    private volatile LongSupplier chunkLookups = () -> 0;
    private volatile LongSupplier chunkMisses = () -> 0;

    /** A remote read took {@code nanos}, queueing for a reader thread included. */
    public void read(long nanos) {
        readTimeMs.observeNanosAsMs(nanos);
    }

    /** Where the chunk cache's counters are read at each scrape. */
    public void chunkCache(LongSupplier lookups, LongSupplier misses) {
        this.chunkLookups = lookups;
        this.chunkMisses = misses;
    }

    long chunkLookups() {
        return chunkLookups.getAsLong();
    }

    long chunkMisses() {
        return chunkMisses.getAsLong();
    }
}

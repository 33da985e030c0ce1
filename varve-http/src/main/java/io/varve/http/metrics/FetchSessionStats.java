package io.varve.http.metrics;

/** The broker's incremental fetch session cache (KIP-227), read at each scrape. */
public interface FetchSessionStats {
    /** Sessions open now. */
    int sessionCount();

    /** Partitions held by all sessions. */
    long partitionsCached();

    /** Sessions evicted since start. */
    long evictions();
}

package io.varve.http.metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * ISR changes this broker made as a partition leader ({@code IsrShrinksPerSec}, {@code IsrExpandsPerSec}). The
 * replica layer calls {@link #isrShrunk()} / {@link #isrExpanded()} once per accepted ISR change; they stay zero
 * until replication lands.
 */
public final class ReplicaMetrics {
    final LongAdder isrShrinks = new LongAdder();
    final LongAdder isrExpands = new LongAdder();

    public void isrShrunk() {
        isrShrinks.increment();
    }

    public void isrExpanded() {
        isrExpands.increment();
    }
}

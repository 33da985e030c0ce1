package io.varve.bench.compare;

/** Which way a figure improves: throughput is better higher, latency, memory and CPU cost lower. */
public enum Better {
    HIGHER,
    LOWER
}

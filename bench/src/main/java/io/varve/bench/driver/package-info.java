/**
 * Load drivers for what Kafka's own perf tools cannot express, run as JVMs of their own like the tools.
 * They use only kafka-clients' public producer and admin API (and the harness's own {@code /proc} readings).
 */
package io.varve.bench.driver;

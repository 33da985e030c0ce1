/**
 * Load drivers for what Kafka's own perf tools cannot express, run as JVMs of their own like the tools.
 * They use only kafka-clients' public producer API.
 */
package io.varve.bench.driver;

/**
 * Multi-process tests of partition replication: real brokers in their own processes (the {@code cluster} harness),
 * real kafka-clients producers and consumers, faults by signal.
 */
package io.varve.it.replication;

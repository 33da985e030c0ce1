/**
 * Multi-process tests of partition replication: real brokers in their own processes (the {@code cluster} harness),
 * real kafka-clients producers and consumers, faults by signal. {@link io.varve.it.replication.ReplicatedTopic} creates
 * a topic on a cluster and answers what the cluster ITs ask of it (leaders, ISRs, the preferred leader).
 */
package io.varve.it.replication;

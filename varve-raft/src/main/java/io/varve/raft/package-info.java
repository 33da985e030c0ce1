/**
 * Raft for the {@code __cluster_metadata} log: the API the metadata layer uses ({@link io.varve.raft.MetadataRaft},
 * {@link io.varve.raft.RaftListener}, {@link io.varve.raft.RaftRecord}). Payloads are opaque bytes: this module knows
 * nothing of metadata records, brokers or Kafka.
 *
 * <p>Sub-packages: {@code core} (the pure KRaft-style state machine, its messages and seams, its stores on disk),
 * {@code node} (the core on a thread, and the metadata log on it) and {@code legacy} (the single-voter log format of
 * earlier releases, read once to migrate it).
 */
package io.varve.raft;

/**
 * Raft for the {@code __cluster_metadata} log: the public API ({@link io.varve.raft.RaftNode},
 * {@link io.varve.raft.RaftConfig}, {@link io.varve.raft.RaftListener}, {@link io.varve.raft.RaftRecord}).
 * Payloads are opaque bytes: this module knows nothing of metadata records, brokers or Kafka.
 *
 * <p>Sub-packages: {@code log} (bytes on disk), {@code state} (roles and the persisted election state),
 * {@code impl} (the raft thread's behaviour). Today the quorum has exactly one voter; elections and
 * replication over a transport with a fake clock plug in at {@code state.QuorumState},
 * {@code log.RaftLog} and {@code impl}.
 */
package io.varve.raft;

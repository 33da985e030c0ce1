/**
 * The seams the pure Raft core ({@code io.varve.raft.core}) drives: the replicated log ({@link
 * io.varve.raft.core.runtime.RaftLog}), the durable election record ({@link
 * io.varve.raft.core.runtime.QuorumStateStore}) and the snapshots ({@link
 * io.varve.raft.core.runtime.SnapshotStore}). Time and randomness are not seams here: the core takes
 * {@code nowMs} on every call and a {@link java.util.Random} at construction. Implementations on disk and
 * a threaded runtime plug in here; tests use in-memory ones that forget what was not flushed.
 */
package io.varve.raft.core.runtime;

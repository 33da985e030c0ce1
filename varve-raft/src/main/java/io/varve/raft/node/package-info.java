/**
 * The Raft core on a thread: {@link io.varve.raft.node.RaftRuntime} (one event loop owning a {@link
 * io.varve.raft.core.RaftCore} and its stores, a bounded queue in front of it, proposals answered when
 * they commit), the {@link io.varve.raft.node.RaftTransport} it sends through and the {@link
 * io.varve.raft.node.CommitListener} it feeds. The threading contract is in {@code RaftRuntime}'s comment.
 *
 * <p>Owns: threads, the queue, time (a monotonic clock read only here), futures. Must not touch: Raft
 * rules (the core's), file formats (the stores'), sockets and Kafka's wire format (a transport's, in the
 * broker).
 */
package io.varve.raft.node;

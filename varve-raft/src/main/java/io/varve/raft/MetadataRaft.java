package io.varve.raft;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the metadata layer (the loader, the controller, DescribeQuorum) needs of the {@code __cluster_metadata}
 * Raft log, as the KRaft-style runtime ({@code io.varve.raft.node.MetadataRaftRuntime}) provides it.
 *
 * <p>Contract: listeners are registered before {@link #start()} and called on one thread, in log
 * order, never with a batch split across calls; {@link #start()} returns once the log this replica held when it
 * started was handed to the listeners; {@link #append} fails with {@link NotLeaderException} when this replica does
 * not lead and with {@link RaftClosedException} once closed.
 */
public interface MetadataRaft extends AutoCloseable {

    /** Most payloads one {@link #append} takes: a batch must fit one follower fetch to be replicated whole. */
    int MAX_BATCH_PAYLOADS = 16_384;

    /** Adds a listener; listeners are called in registration order. Only before {@link #start()}. */
    void register(RaftListener listener);

    /** Opens the log, replays it to the listeners and joins the quorum; see the class comment. */
    void start();

    /**
     * Appends the payloads as one atomic batch; the future completes with the offset of the last payload once it
     * committed and every listener was handed it. The arrays are not copied: callers must not modify them.
     */
    CompletableFuture<Long> append(List<byte[]> payloads);

    /**
     * Stores {@code snapshot} (the state machine's bytes of every record below {@code endOffset}, at most what the
     * listeners were handed, at a batch boundary) and lets the log start move there, deleting what it covers. The
     * array is handed over: callers must not modify it. The future completes once the snapshot is durable. Only the
     * KRaft-style runtime keeps snapshots; the single-voter node answers {@link UnsupportedOperationException}.
     */
    default CompletableFuture<Void> snapshot(long endOffset, byte[] snapshot) {
        return CompletableFuture.failedFuture(
                new UnsupportedOperationException(getClass().getSimpleName() + " does not keep snapshots"));
    }

    /** The current leader's id, or -1 if none is known. */
    int leaderId();

    /** The current epoch (0 before start). */
    int epoch();

    /** Every entry below this offset is committed. */
    long highWatermark();

    int nodeId();

    /**
     * If this replica leads a quorum of several voters, ends its epoch gracefully (EndQuorumEpoch naming successors)
     * and returns once another voter leads, or after {@code timeoutMs}; otherwise returns at once. For a clean stop:
     * the node keeps serving while its successor is elected, so writes find a leader all along.
     */
    default void handOverLeadership(long timeoutMs) {}

    /** Stops the replica; appends still waiting fail with {@link RaftClosedException}. Idempotent. */
    @Override
    void close();
}

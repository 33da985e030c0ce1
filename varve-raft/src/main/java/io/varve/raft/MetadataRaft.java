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

    /** The current leader's id, or -1 if none is known. */
    int leaderId();

    /** The current epoch (0 before start). */
    int epoch();

    /** Every entry below this offset is committed. */
    long highWatermark();

    int nodeId();

    /** Stops the replica; appends still waiting fail with {@link RaftClosedException}. Idempotent. */
    @Override
    void close();
}

package io.varve.raft;

import java.util.List;

/**
 * The state machine fed by a {@link MetadataRaft}. All calls happen on the raft thread, one at a time.
 *
 * <p>A listener must not block: the raft thread also appends and fsyncs. An exception thrown by a
 * listener is fatal to the node (the committed log can no longer be applied in order).
 */
public interface RaftListener {

    /**
     * Called in offset order with committed records: first the whole existing log when the node
     * starts, then each new commit. A call never splits a batch given to {@link MetadataRaft#append},
     * so a listener always observes appended batches atomically.
     */
    void handleCommit(List<RaftRecord> records);

    /**
     * Replaces all state with a snapshot that covers every record below {@code endOffset}: the bytes given to
     * {@link MetadataRaft#snapshot} by this replica or by the leader (fetched with FetchSnapshot). The next
     * {@link #handleCommit} continues at {@code endOffset} or later. Called at start when a snapshot exists, and when
     * a replica too far behind installs the leader's. A listener that cannot load the bytes must throw: the replica
     * stops rather than apply a log it lacks the start of.
     */
    default void handleSnapshot(long endOffset, byte[] snapshot) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot load a snapshot");
    }

    /**
     * Checks a snapshot before it is stored and replaces anything (the log, the state): throw to refuse it. A
     * snapshot fetched from the leader that fails here never reaches the store, so the replica stops with its old
     * log intact and fetches again when restarted. Must not keep the array. By default every snapshot passes.
     */
    default void verifySnapshot(long endOffset, byte[] snapshot) {}

    /** Called after the node learns of a new leader (or, with {@code leaderId == -1}, of none). */
    default void handleLeaderChange(int leaderId, int epoch) {}
}

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

    /** Called after the node learns of a new leader (or, with {@code leaderId == -1}, of none). */
    default void handleLeaderChange(int leaderId, int epoch) {}
}

package io.varve.raft.node;

import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.SnapshotId;
import java.util.List;

/**
 * The state machine a {@link RaftRuntime} feeds (the metadata loader). Every call is made on the
 * runtime's event-loop thread, one at a time, in log order: a snapshot load resets the state machine, and
 * committed entries continue exactly where the previous call (or the snapshot) ended.
 *
 * <p>A listener must not block (the same thread answers votes and fetches) and must not wait on a future
 * the runtime completes. An exception thrown by a listener is fatal to the runtime: the committed log
 * could no longer be applied in order.
 */
public interface CommitListener {

    /**
     * Drops all state and loads {@code stateMachineBytes} (what was given to {@link RaftRuntime#snapshot});
     * the next committed entry has offset {@code id.endOffset()}. Called at start when a snapshot exists
     * and when one is installed from the leader.
     */
    void onSnapshotLoaded(SnapshotId id, byte[] stateMachineBytes);

    /**
     * Entries that committed, in offset order without gaps, of every type: the quorum's own control entries
     * ({@code LEADER_CHANGE}, {@code VOTERS}) hold offsets too and may be skipped by the state machine.
     */
    void onCommitted(List<LogEntry> entries);

    /** The replica learned of a new epoch or leader ({@code leaderId} -1 while none is known). */
    default void onLeaderChange(int epoch, int leaderId) {}
}

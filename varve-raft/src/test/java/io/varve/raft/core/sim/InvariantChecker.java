package io.varve.raft.core.sim;

import io.varve.raft.core.Role;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.VoterSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The safety properties the simulation checks after every step, against one global history of
 * committed entries (append-only: an entry below any replica's high watermark is committed forever).
 * <ul>
 *   <li>at most one leader per epoch;
 *   <li>a committed entry never changes or disappears: every replica's log below its high watermark,
 *       and every entry its state machine is handed, matches the history;
 *   <li>every leader holds every entry committed in an earlier epoch (Raft's leader completeness: a
 *       stale leader of an old epoch, cut off while a newer one commits, need not);
 *   <li>a replica's high watermark never goes back while it runs.
 * </ul>
 */
final class InvariantChecker {
    private static final int READ_CHUNK = 4096;

    private final List<LogEntry> committed = new ArrayList<>();
    /**
     * For each committed entry, an upper bound of the epoch in which it was committed: a leader's epoch
     * when its own high watermark passed the entry, else the epoch of the replica that saw it first.
     */
    private final List<Integer> commitEpochs = new ArrayList<>();

    private final Map<Integer, Integer> leaderOfEpoch = new HashMap<>();

    int committedCount() {
        return committed.size();
    }

    long committedOfType(EntryType type) {
        return committed.stream().filter(e -> e.type() == type).count();
    }

    LogEntry committedAt(long offset) {
        return offset < committed.size() ? committed.get((int) offset) : null;
    }

    void onCommitted(int nodeId, LogEntry entry, int epochBound) {
        long offset = entry.offset();
        if (offset < committed.size()) {
            LogEntry known = committed.get((int) offset);
            check(known.sameAs(entry), "node " + nodeId + " commits " + entry + " where " + known + " was committed");
            commitEpochs.set((int) offset, Math.min(commitEpochs.get((int) offset), epochBound));
        } else {
            check(
                    offset == committed.size(),
                    "node " + nodeId + " commits " + entry + " past the history's end " + committed.size());
            committed.add(entry);
            commitEpochs.add(epochBound);
        }
    }

    /** The incremental check after a step; {@code full} re-reads each replica's whole committed log. */
    void checkNode(SimNode node, boolean full) {
        long highWatermark = node.core.highWatermark();
        check(
                highWatermark >= node.lastHighWatermark,
                "node " + node.id + " high watermark went back from " + node.lastHighWatermark + " to "
                        + highWatermark);
        node.lastHighWatermark = highWatermark;
        check(
                highWatermark <= node.log.endOffset(),
                "node " + node.id + " high watermark " + highWatermark + " past its log end " + node.log.endOffset());
        if (node.core.role() == Role.LEADER) {
            Integer previous = leaderOfEpoch.putIfAbsent(node.core.epoch(), node.id);
            check(
                    previous == null || previous == node.id,
                    "two leaders in epoch " + node.core.epoch() + ": " + previous + " and " + node.id);
            if (previous == null || full) {
                checkHoldsHistory(node);
            }
        }
        for (VoterSet.Voter voter : node.core.voters().voters().values()) {
            // KIP-853: a voter set only ever holds a replica's own directory id and endpoints, or none yet.
            check(
                    voter.equals(VoterSet.Voter.of(voter.id())) || voter.equals(Simulation.voterOf(voter.id())),
                    "node " + node.id + " holds a voter entry no replica announced: " + voter);
        }
        long from = full ? node.log.startOffset() : Math.max(node.verifiedEndOffset, node.log.startOffset());
        verifyLog(node, from, highWatermark);
        node.verifiedEndOffset = highWatermark;
    }

    private void checkHoldsHistory(SimNode node) {
        int epoch = node.core.epoch();
        int end = committed.size();
        while (end > 0 && commitEpochs.get(end - 1) >= epoch) {
            end--;
        }
        check(
                node.log.endOffset() >= end,
                "leader " + node.id + " of epoch " + epoch + " lacks entries committed in earlier epochs: log ends at "
                        + node.log.endOffset() + ", they at " + end);
        for (long offset = node.log.startOffset(); offset < end; ) {
            List<LogEntry> entries = node.log.read(offset, end, READ_CHUNK);
            for (LogEntry entry : entries) {
                LogEntry known = committed.get((int) entry.offset());
                check(
                        known.sameAs(entry),
                        "leader " + node.id + " of epoch " + epoch + " holds " + entry + " where " + known
                                + " was committed");
            }
            offset = entries.get(entries.size() - 1).offset() + 1;
        }
    }

    private void verifyLog(SimNode node, long from, long to) {
        long offset = from;
        while (offset < to) {
            List<LogEntry> entries = node.log.read(offset, to, READ_CHUNK);
            check(!entries.isEmpty(), "node " + node.id + " lost committed entries at " + offset);
            for (LogEntry entry : entries) {
                onCommitted(node.id, entry, node.core.epoch());
            }
            offset = entries.get(entries.size() - 1).offset() + 1;
        }
    }

    void check(boolean condition, String violation) {
        if (!condition) {
            throw new InvariantViolation(violation);
        }
    }

    static final class InvariantViolation extends RuntimeException {
        InvariantViolation(String message) {
            super(message);
        }
    }
}

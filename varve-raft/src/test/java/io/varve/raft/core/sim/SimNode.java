package io.varve.raft.core.sim;

import io.varve.raft.core.RaftCore;
import io.varve.raft.core.RaftCoreConfig;
import io.varve.raft.core.RaftOutput;
import io.varve.raft.core.SnapshotFormat;
import io.varve.raft.core.VoteRule;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.runtime.MemoryQuorumStateStore;
import io.varve.raft.core.runtime.MemoryRaftLog;
import io.varve.raft.core.runtime.MemorySnapshotStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One simulated replica: durable seams that survive a crash (the log keeps only what was flushed), a
 * core and a state machine that do not. The state machine is the list of every committed entry, so
 * its snapshot is that list and a replica's view of history can be compared entry by entry.
 */
final class SimNode {
    final int id;
    final RaftCoreConfig config;
    final VoteRule voteRule;
    final MemoryRaftLog log = new MemoryRaftLog();
    final MemoryQuorumStateStore store = new MemoryQuorumStateStore();
    final MemorySnapshotStore snapshots = new MemorySnapshotStore();
    RaftCore core;
    List<LogEntry> applied = new ArrayList<>();
    long restartAtMs = -1;
    long lastHighWatermark;
    long verifiedEndOffset;
    String lastRole = "";

    SimNode(int id, RaftCoreConfig config, VoteRule voteRule) {
        this.id = id;
        this.config = config;
        this.voteRule = voteRule;
    }

    boolean isUp() {
        return core != null;
    }

    void start(Random random, long nowMs) {
        core = new RaftCore(config, log, store, snapshots, random, voteRule, nowMs);
        applied = new ArrayList<>();
        lastHighWatermark = core.highWatermark();
        verifiedEndOffset = log.startOffset();
        restartAtMs = -1;
    }

    void crash(long restartAtMs) {
        core = null;
        log.crash();
        applied = new ArrayList<>();
        this.restartAtMs = restartAtMs;
    }

    /** Applies what the core handed to the state machine, checking it continues the state machine's history. */
    void apply(RaftOutput output, InvariantChecker checker) {
        if (output.loadSnapshot().isPresent()) {
            applied = decode(SnapshotFormat.stateMachineBytes(snapshots.data()));
            long end = output.loadSnapshot().get().endOffset();
            checker.check(
                    applied.size() == end,
                    "node " + id + " loaded a snapshot of " + applied.size() + " entries, its id says " + end);
            for (LogEntry entry : applied) {
                checker.onCommitted(id, entry, core.epoch());
            }
        }
        for (LogEntry entry : output.committed()) {
            checker.check(
                    entry.offset() == applied.size(),
                    "node " + id + " was handed " + entry + " after " + applied.size() + " applied entries");
            applied.add(entry);
            checker.onCommitted(id, entry, core.epoch());
        }
    }

    byte[] snapshotOfApplied() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(applied.size());
            for (LogEntry entry : applied) {
                out.writeLong(entry.offset());
                out.writeInt(entry.epoch());
                out.writeByte(entry.type().ordinal());
                out.writeInt(entry.payload().length);
                out.write(entry.payload());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static List<LogEntry> decode(byte[] data) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            int count = in.readInt();
            List<LogEntry> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                long offset = in.readLong();
                int epoch = in.readInt();
                EntryType type = EntryType.values()[in.readByte()];
                byte[] payload = new byte[in.readInt()];
                in.readFully(payload);
                entries.add(new LogEntry(offset, epoch, type, payload));
            }
            return entries;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.varve.raft.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.raft.core.Proposal;
import io.varve.raft.core.RaftCore;
import io.varve.raft.core.RaftCoreConfig;
import io.varve.raft.core.RaftOutput;
import io.varve.raft.core.Role;
import io.varve.raft.core.SnapshotFormat;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OutboundMessage;
import io.varve.raft.core.message.SnapshotId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three cores on the file stores, restarted again and again: proposals to whoever leads, power cuts that
 * keep a random part of each unflushed tail, restarts that reopen the files, snapshots. Every entry a
 * replica applies must agree with what any other applied at that offset, and once the restarts stop every
 * replica must hold every entry that ever committed anywhere.
 */
class FileStoresRestartLoopTest {
    private static final long TICK_MS = 10;
    private static final int PROPOSALS = 300;
    private static final long MAX_CHAOS_MS = 120_000;
    private static final long HEAL_BOUND_MS = 15_000;
    private static final Set<Integer> VOTERS = Set.of(0, 1, 2);

    @TempDir
    Path root;

    private final Random random = new Random(42);
    private final Map<Long, LogEntry> committed = new TreeMap<>();
    private final List<Node> nodes = new ArrayList<>();
    private List<InboundDelivery> inFlight = new ArrayList<>();
    private long nowMs;

    @Test
    void everyCommittedEntrySurvivesRestartsAndPowerCutsOnTheFileStores() {
        for (int id = 0; id < 3; id++) {
            nodes.add(new Node(id, root.resolve("node-" + id)));
            nodes.get(id).start();
        }
        int proposals = 0;
        int crashes = 0;
        int snapshots = 0;
        for (; proposals < PROPOSALS && nowMs < MAX_CHAOS_MS; nowMs += TICK_MS) {
            step();
            Node leader = leader();
            if (leader != null && random.nextInt(3) == 0) {
                Proposal proposal =
                        leader.core.propose(List.of(("p-" + proposals).getBytes(StandardCharsets.UTF_8)), nowMs);
                proposals += proposal.accepted() ? 1 : 0;
            }
            Node victim = nodes.get(random.nextInt(nodes.size()));
            if (random.nextInt(60) == 0 && victim.core != null && nodes.stream().allMatch(n -> n.core != null)) {
                victim.powerCut(nowMs + 50 + random.nextInt(400));
                crashes++;
            }
            if (random.nextInt(80) == 0 && victim.core != null && victim.snapshotIfWorthIt()) {
                snapshots++;
            }
        }
        assertThat(proposals).as("proposals accepted during the chaos").isEqualTo(PROPOSALS);
        long healStartMs = nowMs;
        while (!converged()) {
            assertThat(nowMs - healStartMs)
                    .as("time to converge after the restarts stop")
                    .isLessThan(HEAL_BOUND_MS);
            step();
            nowMs += TICK_MS;
        }
        for (Node node : nodes) {
            for (LogEntry entry : committed.values()) {
                if (entry.type() == EntryType.DATA) {
                    assertThat(node.state.get(entry.offset()))
                            .as("node " + node.id + " at " + entry.offset())
                            .isEqualTo(entry.payload());
                }
            }
        }
        assertThat(crashes).as("power cuts").isGreaterThan(5);
        assertThat(snapshots).as("snapshots").isGreaterThan(2);
        for (Node node : nodes) {
            node.close();
        }
    }

    @Test
    void aCrashBetweenStoringASnapshotAndMovingTheLogStartIsFinishedOnRestart() {
        Node single = new Node(0, root.resolve("single"));
        nodes.add(single);
        single.start(Set.of(0));
        for (int i = 0; i < 200 && (i < 20 || single.appliedEnd < 15); i++, nowMs += TICK_MS) {
            step();
            if (single.core.role() == Role.LEADER && i % 2 == 0) {
                single.core.propose(List.of(("s-" + i).getBytes(StandardCharsets.UTF_8)), nowMs);
            }
            nowMs += 100;
        }
        long snapshotEnd = single.appliedEnd;
        single.snapshotIfWorthIt();
        single.close();
        assertThat(single.log.startOffset()).isEqualTo(snapshotEnd);
        // Put the log start back where it was: the crash came after the snapshot file, before the start moved.
        new KeyValueFile(single.dir.resolve(FileRaftLog.START_FILE_NAME), "test", 1)
                .write(Map.of("startOffset", 0L, "startEpoch", 0L, "resetPending", 0L));
        single.start(Set.of(0));
        assertThat(single.log.startOffset()).isEqualTo(snapshotEnd);
        for (int i = 0; i < 100 && single.core.role() != Role.LEADER; i++, nowMs += TICK_MS) {
            step(); // the state machine loads the snapshot, then gets only the entries after it
        }
        assertThat(single.appliedEnd).isGreaterThanOrEqualTo(snapshotEnd);
        single.close();
    }

    private void step() {
        for (Node node : nodes) {
            if (node.core == null && nowMs >= node.restartAtMs) {
                node.start();
            }
        }
        List<InboundDelivery> due = inFlight;
        inFlight = new ArrayList<>();
        for (InboundDelivery delivery : due) {
            Node to = nodes.get(delivery.to);
            if (to.core != null) {
                to.process(to.core.handle(delivery.message, nowMs));
            }
        }
        for (Node node : nodes) {
            if (node.core != null) {
                node.process(node.core.poll(nowMs));
            }
        }
    }

    private Node leader() {
        return nodes.stream()
                .filter(n -> n.core != null && n.core.role() == Role.LEADER)
                .findFirst()
                .orElse(null);
    }

    private boolean converged() {
        long end = committed.isEmpty() ? 0 : ((TreeMap<Long, LogEntry>) committed).lastKey() + 1;
        return nodes.stream().allMatch(n -> n.core != null && n.appliedEnd >= end);
    }

    private record InboundDelivery(int to, InboundMessage message) {}

    /** A replica: its files survive a power cut; its core and state machine do not. */
    private final class Node {
        final int id;
        final Path dir;
        RaftCore core;
        FileRaftLog log;
        FileSnapshotStore snapshots;
        /** The state machine: every committed data entry by offset, and how far it has applied. */
        TreeMap<Long, byte[]> state = new TreeMap<>();

        long appliedEnd;
        long restartAtMs;

        Node(int id, Path dir) {
            this.id = id;
            this.dir = dir;
        }

        void start() {
            start(VOTERS);
        }

        void start(Set<Integer> voters) {
            log = FileRaftLog.open(dir, 2048);
            snapshots = new FileSnapshotStore(dir);
            RaftCoreConfig config =
                    new RaftCoreConfig(id, "restart-loop", voters, 1000, 1000, 2000, 1000, 20, 300, 32, 256, 1024);
            core = new RaftCore(
                    config, log, new FileQuorumStateStore(dir), snapshots, new Random(random.nextLong()), nowMs);
            state = new TreeMap<>();
            appliedEnd = 0;
        }

        void powerCut(long restartAtMs) {
            PowerCut.cut(log, random);
            core = null;
            this.restartAtMs = restartAtMs;
        }

        void close() {
            log.close();
        }

        void process(RaftOutput output) {
            for (OutboundMessage message : output.messages()) {
                if (message.destinationId() < nodes.size()) {
                    inFlight.add(new InboundDelivery(
                            message.destinationId(),
                            new InboundMessage(id, message.correlationId(), message.message())));
                }
            }
            output.loadSnapshot().ifPresent(this::load);
            for (LogEntry entry : output.committed()) {
                assertThat(entry.offset())
                        .as("node " + id + " applies in order")
                        .isEqualTo(appliedEnd);
                LogEntry earlier = committed.putIfAbsent(entry.offset(), entry);
                if (earlier != null) {
                    assertThat(entry.sameAs(earlier))
                            .as("node " + id + " agrees at " + entry.offset())
                            .isTrue();
                }
                if (entry.type() == EntryType.DATA) {
                    state.put(entry.offset(), entry.payload());
                }
                appliedEnd = entry.offset() + 1;
            }
        }

        boolean snapshotIfWorthIt() {
            if (appliedEnd <= log.startOffset() + 10) {
                return false;
            }
            core.snapshotTaken(appliedEnd, encode());
            return true;
        }

        private void load(SnapshotId id) {
            byte[] stored = snapshots.read(id, 0, (int) snapshots.sizeBytes(id));
            ByteBuffer in = ByteBuffer.wrap(SnapshotFormat.stateMachineBytes(stored));
            state = new TreeMap<>();
            appliedEnd = in.getLong();
            int count = in.getInt();
            for (int i = 0; i < count; i++) {
                long offset = in.getLong();
                byte[] payload = new byte[in.getInt()];
                in.get(payload);
                state.put(offset, payload);
                LogEntry known = committed.get(offset);
                assertThat(known == null || Arrays.equals(known.payload(), payload))
                        .as("node " + id + " snapshot agrees at " + offset)
                        .isTrue();
            }
            assertThat(appliedEnd).isEqualTo(id.endOffset());
        }

        private byte[] encode() {
            int bytes = 12;
            for (byte[] payload : state.values()) {
                bytes += 12 + payload.length;
            }
            ByteBuffer out = ByteBuffer.allocate(bytes).putLong(appliedEnd).putInt(state.size());
            state.forEach((offset, payload) ->
                    out.putLong(offset).putInt(payload.length).put(payload));
            return out.array();
        }
    }
}

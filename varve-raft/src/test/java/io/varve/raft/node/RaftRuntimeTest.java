package io.varve.raft.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.raft.NotLeaderException;
import io.varve.raft.RaftClosedException;
import io.varve.raft.core.RaftCoreConfig;
import io.varve.raft.core.Role;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.SnapshotId;
import io.varve.raft.core.store.FileQuorumStateStore;
import io.varve.raft.core.store.FileRaftLog;
import io.varve.raft.core.store.FileSnapshotStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RaftRuntimeTest {
    private static final Set<Integer> VOTERS = Set.of(0, 1, 2);
    private static final Duration BOUND = Duration.ofSeconds(20);

    @TempDir
    Path root;

    private final InMemoryNetwork network = new InMemoryNetwork();
    private final Map<Integer, Replica> replicas = new HashMap<>();

    @AfterEach
    void closeAll() {
        replicas.values().forEach(Replica::close);
    }

    @Test
    void threeRuntimesElectOneLeaderAndCommitProposalsOnEveryReplicaInOrder() throws Exception {
        startAll();
        Replica leader = awaitLeader();
        List<CompletableFuture<Long>> commits = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            commits.add(leader.runtime.propose(List.of(bytes("a-" + i), bytes("b-" + i))));
        }
        long lastOffset = -1;
        for (CompletableFuture<Long> commit : commits) {
            long offset = commit.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            assertThat(offset).isGreaterThan(lastOffset);
            lastOffset = offset;
        }
        long committedThrough = lastOffset;
        await().atMost(BOUND).until(() -> replicas.values().stream().allMatch(r -> r.appliedEnd() > committedThrough));
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            expected.add("a-" + i);
            expected.add("b-" + i);
        }
        for (Replica replica : replicas.values()) {
            assertThat(replica.dataPayloads()).containsExactlyElementsOf(expected);
            assertThat(replica.offsetsAreDense()).isTrue();
        }
    }

    @Test
    void aProposalToAFollowerFailsWithTheLeaderItKnows() {
        startAll();
        Replica leader = awaitLeader();
        Replica follower =
                replicas.values().stream().filter(r -> r != leader).findFirst().orElseThrow();
        await().atMost(BOUND).until(() -> follower.runtime.status().leaderId() == leader.id);
        assertThatThrownBy(() -> follower.runtime.propose(List.of(bytes("x"))).get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOfSatisfying(
                        NotLeaderException.class, e -> assertThat(e.leaderId()).isEqualTo(leader.id));
    }

    @Test
    void theOthersElectANewLeaderAndKeepCommittingAfterTheLeaderCloses() throws Exception {
        startAll();
        Replica first = awaitLeader();
        long before = first.runtime.propose(List.of(bytes("before"))).get(BOUND.toSeconds(), TimeUnit.SECONDS);
        int firstEpoch = first.runtime.status().epoch();
        first.close();
        replicas.remove(first.id);
        Replica second = awaitLeader();
        assertThat(second.id).isNotEqualTo(first.id);
        assertThat(second.runtime.status().epoch()).isGreaterThan(firstEpoch);
        long after = second.runtime.propose(List.of(bytes("after"))).get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(after).isGreaterThan(before);
        await().atMost(BOUND).until(() -> replicas.values().stream().allMatch(r -> r.appliedEnd() > after));
        for (Replica replica : replicas.values()) {
            assertThat(replica.dataPayloads()).containsExactly("before", "after");
        }
    }

    @Test
    void aClosingLeaderHandsOverItsEpochAndReturnsOnlyOnceASuccessorLeads() throws Exception {
        startAll();
        Replica first = awaitLeader();
        int firstEpoch = first.runtime.status().epoch();
        long startNanos = System.nanoTime();
        first.close();
        long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        assertThat(first.runtime.status().epoch())
                .as("the closed leader saw its successor's epoch before it stopped")
                .isGreaterThan(firstEpoch);
        assertThat(closeMs).as("well within the election timeout (300 ms)").isLessThan(300);
        replicas.remove(first.id);
        Replica second = awaitLeader();
        assertThat(second.runtime.status().epoch()).isGreaterThan(firstEpoch);
    }

    @Test
    void aRestartedReplicaLoadsItsSnapshotThenOnlyTheEntriesAfterIt() throws Exception {
        startAll();
        Replica leader = awaitLeader();
        for (int i = 0; i < 10; i++) {
            leader.runtime.propose(List.of(bytes("s-" + i))).get(BOUND.toSeconds(), TimeUnit.SECONDS);
        }
        Replica follower =
                replicas.values().stream().filter(r -> r != leader).findFirst().orElseThrow();
        await().atMost(BOUND).until(() -> follower.dataPayloads().size() == 10);
        long end = follower.appliedEnd();
        SnapshotId id =
                follower.runtime.snapshot(end, bytes("state-through-" + end)).get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(id.endOffset()).isEqualTo(end);
        follower.close();
        Replica restarted = start(follower.id);
        leader.runtime.propose(List.of(bytes("later"))).get(BOUND.toSeconds(), TimeUnit.SECONDS);
        await().atMost(BOUND).until(() -> restarted.dataPayloads().contains("later"));
        assertThat(restarted.loadedSnapshots).containsExactly("state-through-" + end);
        assertThat(restarted.entries.get(0).offset()).isEqualTo(end);
        assertThat(restarted.dataPayloads()).containsExactly("later");
    }

    @Test
    void closingFailsWhatWaitsAndRefusesNewProposals() {
        startAll();
        Replica leader = awaitLeader();
        network.isolate(leader.id); // nothing can commit now
        CompletableFuture<Long> stuck = leader.runtime.propose(List.of(bytes("stuck")));
        leader.close();
        assertThatThrownBy(() -> stuck.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(RaftClosedException.class);
        assertThatThrownBy(() -> leader.runtime.propose(List.of(bytes("late"))).get(5, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(RaftClosedException.class);
    }

    private void startAll() {
        for (int id : VOTERS) {
            start(id);
        }
    }

    private Replica start(int id) {
        Replica replica = new Replica(id, root.resolve("node-" + id));
        replicas.put(id, replica);
        replica.runtime.start();
        return replica;
    }

    private Replica awaitLeader() {
        await().atMost(BOUND).until(() -> leaderOrNull() != null);
        return leaderOrNull();
    }

    private Replica leaderOrNull() {
        List<Replica> leaders = replicas.values().stream()
                .filter(r -> r.runtime.status().role() == Role.LEADER)
                .toList();
        if (leaders.size() != 1) {
            return null;
        }
        Replica leader = leaders.get(0);
        int epoch = leader.runtime.status().epoch();
        long followers = replicas.values().stream()
                .filter(r -> r.runtime.status().epoch() == epoch
                        && r.runtime.status().leaderId() == leader.id)
                .count();
        return followers >= 2 ? leader : null; // a majority of three knows it
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A runtime on file stores with a listener that records what it is handed. */
    private final class Replica implements CommitListener {
        final int id;
        final FileRaftLog log;
        final RaftRuntime runtime;
        final List<LogEntry> entries = new CopyOnWriteArrayList<>();
        final List<String> loadedSnapshots = new CopyOnWriteArrayList<>();
        private boolean closed;

        Replica(int id, Path dir) {
            this.id = id;
            this.log = FileRaftLog.open(dir, FileRaftLog.DEFAULT_SEGMENT_BYTES);
            RaftCoreConfig core =
                    new RaftCoreConfig(id, "runtime-test", VOTERS, 300, 300, 600, 500, 20, 100, 64, 1024, 256);
            this.runtime = new RaftRuntime(
                    core,
                    RaftRuntimeConfig.defaults(),
                    log,
                    new FileQuorumStateStore(dir),
                    new FileSnapshotStore(dir),
                    network.transport(id),
                    this,
                    RaftRuntime.monotonicClockMs(),
                    new Random(id));
        }

        @Override
        public void onSnapshotLoaded(SnapshotId snapshot, byte[] stateMachineBytes) {
            entries.clear();
            loadedSnapshots.add(new String(stateMachineBytes, StandardCharsets.UTF_8));
        }

        @Override
        public void onCommitted(List<LogEntry> committed) {
            entries.addAll(committed);
        }

        long appliedEnd() {
            return entries.isEmpty() ? 0 : entries.get(entries.size() - 1).offset() + 1;
        }

        List<String> dataPayloads() {
            return entries.stream()
                    .filter(e -> e.type() == EntryType.DATA)
                    .map(e -> new String(e.payload(), StandardCharsets.UTF_8))
                    .collect(Collectors.toList());
        }

        boolean offsetsAreDense() {
            for (int i = 1; i < entries.size(); i++) {
                if (entries.get(i).offset() != entries.get(i - 1).offset() + 1) {
                    return false;
                }
            }
            return true;
        }

        void close() {
            if (!closed) {
                closed = true;
                runtime.close();
                log.close();
            }
        }
    }
}

package io.varve.raft.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.raft.RaftClosedException;
import io.varve.raft.RaftException;
import io.varve.raft.core.RaftCoreConfig;
import io.varve.raft.core.Role;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.SnapshotId;
import io.varve.raft.core.runtime.MemoryQuorumStateStore;
import io.varve.raft.core.runtime.MemoryRaftLog;
import io.varve.raft.core.runtime.MemorySnapshotStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A single-voter runtime on in-memory stores: what its queue refuses, and what a failing listener does. */
class RaftRuntimeLimitsTest {
    private static final int QUEUE_CAPACITY = 8;
    private RaftRuntime runtime;

    @AfterEach
    void close() {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test
    void aFullQueueRefusesAProposalAtOnceAndTheQueuedOnesStillCommit() throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        runtime = start(entry -> {
            if (text(entry).equals("block")) {
                blocked.countDown();
                awaitQuietly(release);
            }
        });
        CompletableFuture<Long> first = runtime.propose(List.of(bytes("block")));
        assertThat(blocked.await(10, TimeUnit.SECONDS))
                .as("the loop is inside the listener")
                .isTrue();
        List<CompletableFuture<Long>> queued = new ArrayList<>();
        for (int i = 0; i < QUEUE_CAPACITY; i++) {
            queued.add(runtime.propose(List.of(bytes("queued-" + i))));
        }
        CompletableFuture<Long> refused = runtime.propose(List.of(bytes("one too many")));
        assertThat(refused).isCompletedExceptionally();
        assertThatThrownBy(refused::get)
                .cause()
                .isInstanceOf(RaftException.class)
                .hasMessageContaining("queue is full");
        release.countDown();
        first.get(10, TimeUnit.SECONDS);
        for (CompletableFuture<Long> proposal : queued) {
            assertThat(proposal.get(10, TimeUnit.SECONDS)).isGreaterThan(first.get());
        }
    }

    @Test
    void aListenerThatThrowsStopsTheRuntimeLoudlyAndFailsWhatWaits() {
        IllegalStateException poison = new IllegalStateException("the state machine cannot apply this");
        runtime = start(entry -> {
            if (text(entry).equals("poison")) {
                throw poison;
            }
        });
        CompletableFuture<Long> proposal = runtime.propose(List.of(bytes("poison")));
        assertThatThrownBy(() -> proposal.get(10, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(RaftClosedException.class)
                .hasCause(poison);
        await().atMost(Duration.ofSeconds(10)).until(() -> runtime.failure() == poison);
        assertThat(runtime.propose(List.of(bytes("later")))).isCompletedExceptionally();
    }

    private static RaftRuntime start(Consumer<LogEntry> onData) {
        RaftCoreConfig core = new RaftCoreConfig(0, "limits", Set.of(0), 100, 100, 200, 150, 20, 50, 64, 1024, 256);
        RaftRuntime runtime = new RaftRuntime(
                core,
                new RaftRuntimeConfig(QUEUE_CAPACITY, 5, 256, 1_000, 5_000),
                new MemoryRaftLog(),
                new MemoryQuorumStateStore(),
                new MemorySnapshotStore(),
                new InMemoryNetwork().transport(0),
                new CommitListener() {
                    @Override
                    public void onSnapshotLoaded(SnapshotId id, byte[] stateMachineBytes) {}

                    @Override
                    public void onCommitted(List<LogEntry> entries) {
                        entries.stream().filter(e -> e.type() == EntryType.DATA).forEach(onData);
                    }
                },
                RaftRuntime.monotonicClockMs(),
                new Random(0));
        runtime.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> runtime.status().role() == Role.LEADER);
        return runtime;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String text(LogEntry entry) {
        return new String(entry.payload(), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

package io.varve.raft.node;

import io.varve.raft.NotLeaderException;
import io.varve.raft.RaftClosedException;
import io.varve.raft.RaftException;
import io.varve.raft.core.Proposal;
import io.varve.raft.core.RaftCore;
import io.varve.raft.core.RaftCoreConfig;
import io.varve.raft.core.RaftOutput;
import io.varve.raft.core.Role;
import io.varve.raft.core.SnapshotFormat;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OutboundMessage;
import io.varve.raft.core.message.SnapshotId;
import io.varve.raft.core.runtime.QuorumStateStore;
import io.varve.raft.core.runtime.RaftLog;
import io.varve.raft.core.runtime.SnapshotStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link RaftCore} on its own thread: the replica a controller runs.
 *
 * <p>Threading contract.
 * <ul>
 *   <li>One event-loop thread, {@code raft-<nodeId>}, owns the core, the log, the election store and the
 *       snapshot store once {@link #start()} returns: nothing else may touch them until {@link #close()}
 *       returns. The core has no locks and needs none.
 *   <li>Every other thread talks to the loop through one bounded queue: {@link #deliver} (inbound
 *       messages, from the transport's threads), {@link #propose}, {@link #snapshot}, {@link #resign}.
 *       None of them blocks. When the queue is full an inbound message is dropped (Raft retries) and a
 *       command's future fails at once.
 *   <li>The loop takes events in arrival order, at most {@code maxEventsPerTurn} per turn, and runs the
 *       core's timers ({@link RaftCore#poll}) every {@code tickMs} and after each turn that proposed.
 *   <li>The loop calls the {@link RaftTransport} (which must not block) and the {@link CommitListener}
 *       (see its contract) and completes futures, all on its own thread. A future's callbacks that run
 *       there must be short: they run inside the loop.
 *   <li>{@link #status()} is a volatile snapshot published after every turn, readable from any thread.
 *   <li>Any exception out of the core, a store or a listener is fatal: the loop stops, every waiting future
 *       fails with a {@link RaftClosedException} carrying the cause, and {@link #failure()} tells it.
 * </ul>
 *
 * <p>A proposal's future completes with the offset of its last entry once that entry commits with the
 * epoch it was appended in; it fails with {@link NotLeaderException} when this replica does not lead, and
 * with {@link ProposalLostException} when another entry committed at its offset. The runtime owns the
 * transport's lifecycle (started in {@link #start()}, closed in {@link #close()}); the stores belong to
 * the caller, who may close them after {@link #close()} returns.
 */
public final class RaftRuntime implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RaftRuntime.class);

    private final RaftCoreConfig coreConfig;
    private final RaftRuntimeConfig config;
    private final RaftLog log;
    private final QuorumStateStore quorumStore;
    private final SnapshotStore snapshots;
    private final RaftTransport transport;
    private final CommitListener listener;
    private final LongSupplier clockMs;
    private final Random random;
    private final BlockingQueue<Event> queue;
    private final AtomicLong droppedInbound = new AtomicLong();
    private final Thread thread;

    // Owned by the loop thread.
    private RaftCore core;
    private final TreeMap<Long, List<PendingProposal>> pendingByLastOffset = new TreeMap<>();
    private int pendingCount;
    private int lastEpoch = -1;
    private int lastLeaderId = -2;
    private long nextPollAtMs;
    private boolean pollNow;

    private volatile RaftStatus status;
    private volatile Throwable failure;
    private volatile boolean closing;
    /** Closing, but a resigned leader still takes messages until its successor's epoch reaches it. */
    private volatile boolean handingOver;

    private volatile boolean started;

    public RaftRuntime(
            RaftCoreConfig coreConfig,
            RaftRuntimeConfig config,
            RaftLog log,
            QuorumStateStore quorumStore,
            SnapshotStore snapshots,
            RaftTransport transport,
            CommitListener listener,
            LongSupplier clockMs,
            Random random) {
        this.coreConfig = Objects.requireNonNull(coreConfig, "coreConfig");
        this.config = Objects.requireNonNull(config, "config");
        this.log = Objects.requireNonNull(log, "log");
        this.quorumStore = Objects.requireNonNull(quorumStore, "quorumStore");
        this.snapshots = Objects.requireNonNull(snapshots, "snapshots");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
        this.random = Objects.requireNonNull(random, "random");
        this.queue = new ArrayBlockingQueue<>(config.queueCapacity());
        this.thread = new Thread(this::runLoop, "raft-" + coreConfig.nodeId());
        this.thread.setDaemon(true);
        this.status = new RaftStatus(coreConfig.nodeId(), Role.UNATTACHED, 0, -1, 0, coreConfig.bootstrapVoterSet());
    }

    /** A monotonic clock in milliseconds, for production use. */
    public static LongSupplier monotonicClockMs() {
        return () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    }

    /** Opens the core on the stores (reading the election record and the latest snapshot) and starts the loop. */
    public synchronized void start() {
        if (started) {
            throw new IllegalStateException("already started");
        }
        started = true;
        long nowMs = clockMs.getAsLong();
        core = new RaftCore(coreConfig, log, quorumStore, snapshots, random, nowMs);
        nextPollAtMs = nowMs;
        transport.start(this::deliver);
        thread.start(); // publishes the core to the loop thread (happens-before)
        LOG.info(
                "Raft runtime {} started: epoch {}, voters {}",
                coreConfig.nodeId(),
                core.epoch(),
                core.voters().ids());
    }

    /** Queues a message from another replica; false (and dropped) when the queue is full or the runtime closed. */
    public boolean deliver(InboundMessage message) {
        if ((closing && !handingOver) || !queue.offer(new Event.Inbound(message))) {
            droppedInbound.incrementAndGet();
            return false;
        }
        return true;
    }

    /** Proposes entries to commit together; see the class comment for how the future completes. */
    public CompletableFuture<Long> propose(List<byte[]> payloads) {
        CompletableFuture<Long> future = new CompletableFuture<>();
        submit(new Event.Propose(List.copyOf(payloads), future), future);
        return future;
    }

    /**
     * Records that the state machine saved its state of every entry below {@code endOffset} (at most what
     * it was handed); the log start moves there. Completes with the stored snapshot's id. The array is handed
     * over, not copied (a metadata snapshot can be tens of megabytes): the caller must not modify it.
     */
    public CompletableFuture<SnapshotId> snapshot(long endOffset, byte[] stateMachineBytes) {
        CompletableFuture<SnapshotId> future = new CompletableFuture<>();
        submit(new Event.Snapshot(endOffset, Objects.requireNonNull(stateMachineBytes), future), future);
        return future;
    }

    /** If leading, ends the epoch gracefully and names successors (KIP-595's EndQuorumEpoch). */
    public CompletableFuture<Void> resign() {
        CompletableFuture<Void> future = new CompletableFuture<>();
        submit(new Event.Resign(future), future);
        return future;
    }

    public RaftStatus status() {
        return status;
    }

    /** Why the loop stopped, if it stopped on its own. */
    public Throwable failure() {
        return failure;
    }

    /** Inbound messages dropped because the queue was full or the runtime closed. */
    public long droppedInbound() {
        return droppedInbound.get();
    }

    /**
     * Resigns if leading (so the others elect at once) and waits, at most an election timeout, until a successor
     * leads; stops the loop and the transport, fails what waits.
     */
    @Override
    public void close() {
        closing = true;
        if (!started) {
            transport.close();
            return;
        }
        if (Thread.currentThread() == thread) {
            return; // called from a listener: the loop ends after this turn and closes the transport itself
        }
        queue.offer(Event.Stop.INSTANCE); // when full, the loop sees the flag within a tick
        try {
            thread.join(config.closeTimeoutMs());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.error("Raft runtime {} did not stop within {} ms", coreConfig.nodeId(), config.closeTimeoutMs());
        }
        transport.close();
    }

    private void submit(Event event, CompletableFuture<?> future) {
        if (!started) {
            future.completeExceptionally(new IllegalStateException("the Raft runtime is not started"));
        } else if (closing || failure != null) {
            future.completeExceptionally(new RaftClosedException("the Raft runtime is closed", failure));
        } else if (!queue.offer(event)) {
            future.completeExceptionally(new RaftException("the Raft runtime's queue is full"));
        } else if (closing) {
            drainAndFail(new RaftClosedException("the Raft runtime is closed", failure)); // raced with the stop
        }
    }

    private void runLoop() {
        try {
            while (!closing) {
                turn();
            }
            if (core.role() == Role.LEADER) {
                handOver();
            }
            LOG.info("Raft runtime {} stopped in epoch {}", coreConfig.nodeId(), core.epoch());
        } catch (Throwable t) {
            failure = t;
            LOG.error("Raft runtime {} failed and stopped", coreConfig.nodeId(), t);
        } finally {
            failEverythingWaiting();
            transport.close();
        }
    }

    /**
     * A leader that stops resigns (EndQuorumEpoch naming its successors) and keeps the loop and the transport up
     * until a later epoch reaches it, at most an election timeout (before which a resigned replica never campaigns
     * itself). Closing the transport at once could drop the EndQuorumEpoch, and a follower that missed it refuses
     * the successor's pre-vote until its own fetch timeout passes (seen with real processes: a clean stop then took
     * as long as a crash).
     */
    private void handOver() throws InterruptedException {
        int epoch = core.epoch();
        handingOver = true;
        process(core.resign(clockMs.getAsLong()));
        if (core.voters().ids().size() <= 1) {
            return; // a lone voter has nobody to hand over to
        }
        long deadlineMs = clockMs.getAsLong() + Math.min(coreConfig.electionTimeoutMs(), config.closeTimeoutMs() / 2);
        while (core.epoch() == epoch && clockMs.getAsLong() < deadlineMs) {
            turn();
        }
    }

    private void turn() throws InterruptedException {
        long waitMs = Math.max(0, nextPollAtMs - clockMs.getAsLong());
        Event event = queue.poll(waitMs, TimeUnit.MILLISECONDS);
        for (int handled = 0; event != null; ) {
            handle(event);
            if (++handled >= config.maxEventsPerTurn()) {
                break;
            }
            event = queue.poll();
        }
        long nowMs = clockMs.getAsLong();
        if (pollNow || nowMs >= nextPollAtMs) {
            pollNow = false;
            process(core.poll(nowMs));
            nextPollAtMs = nowMs + config.tickMs();
        }
        status = new RaftStatus(
                core.nodeId(), core.role(), core.epoch(), core.leaderId(), core.highWatermark(), core.voters());
    }

    private void handle(Event event) {
        long nowMs = clockMs.getAsLong();
        if (event instanceof Event.Inbound inbound) {
            process(core.handle(inbound.message(), nowMs));
        } else if (event instanceof Event.Propose propose) {
            handlePropose(propose, nowMs);
        } else if (event instanceof Event.Snapshot snapshot) {
            try {
                snapshot.future().complete(core.snapshotTaken(snapshot.endOffset(), snapshot.data()));
            } catch (IllegalArgumentException e) {
                snapshot.future().completeExceptionally(e); // the caller's offset, not the replica, is wrong
            } catch (RuntimeException e) {
                snapshot.future().completeExceptionally(e); // taken off the queue: nothing else would fail it
                throw e; // a store that cannot write stops the loop
            }
        } else if (event instanceof Event.Resign resign) {
            process(core.resign(nowMs));
            resign.future().complete(null);
        } else {
            closing = true;
        }
    }

    private void handlePropose(Event.Propose propose, long nowMs) {
        if (pendingCount >= config.maxPendingProposals()) {
            propose.future()
                    .completeExceptionally(new RaftException(
                            "too many proposals wait for their commit (" + config.maxPendingProposals() + ")"));
            return;
        }
        Proposal proposal;
        try {
            proposal = core.propose(propose.payloads(), nowMs);
        } catch (IllegalArgumentException e) {
            propose.future().completeExceptionally(e);
            return;
        }
        if (!proposal.accepted()) {
            propose.future().completeExceptionally(new NotLeaderException(proposal.leaderId(), proposal.epoch()));
            return;
        }
        long lastOffset = proposal.baseOffset() + propose.payloads().size() - 1;
        pendingByLastOffset
                .computeIfAbsent(lastOffset, k -> new ArrayList<>(1))
                .add(new PendingProposal(proposal.epoch(), lastOffset, propose.future()));
        pendingCount++;
        pollNow = true; // flush and advance the high watermark in this turn: group commit
    }

    private void process(RaftOutput output) {
        for (OutboundMessage message : output.messages()) {
            try {
                transport.send(message);
            } catch (RuntimeException e) {
                LOG.debug(
                        "Raft runtime {} could not send to {}: {}",
                        coreConfig.nodeId(),
                        message.destinationId(),
                        e.toString());
            }
        }
        if (output.loadSnapshot().isPresent()) {
            loadSnapshot(output.loadSnapshot().get());
        }
        if (!output.committed().isEmpty()) {
            listener.onCommitted(output.committed());
            resolveProposals(output.committed());
        }
        if (core.epoch() != lastEpoch || core.leaderId() != lastLeaderId) {
            lastEpoch = core.epoch();
            lastLeaderId = core.leaderId();
            listener.onLeaderChange(lastEpoch, lastLeaderId);
        }
    }

    private void loadSnapshot(SnapshotId id) {
        long sizeBytes = snapshots.sizeBytes(id);
        if (sizeBytes > Integer.MAX_VALUE - 64) {
            throw new IllegalStateException("snapshot " + id + " of " + sizeBytes + " bytes does not fit one array");
        }
        byte[] stored = snapshots.read(id, 0, (int) sizeBytes);
        listener.onSnapshotLoaded(id, SnapshotFormat.stateMachineBytes(stored));
        Map<Long, List<PendingProposal>> covered = pendingByLastOffset.headMap(id.endOffset());
        for (List<PendingProposal> waiting : covered.values()) {
            for (PendingProposal pending : waiting) {
                pending.future()
                        .completeExceptionally(new ProposalLostException("outcome unknown: snapshot " + id
                                + " replaced the log before offset " + pending.lastOffset() + " committed here"));
                pendingCount--;
            }
        }
        covered.clear();
    }

    private void resolveProposals(List<LogEntry> committed) {
        long first = committed.get(0).offset();
        long last = committed.get(committed.size() - 1).offset();
        Map<Long, List<PendingProposal>> due = pendingByLastOffset.subMap(first, true, last, true);
        for (Map.Entry<Long, List<PendingProposal>> entry : due.entrySet()) {
            LogEntry landed = committed.get((int) (entry.getKey() - first));
            for (PendingProposal pending : entry.getValue()) {
                if (landed.epoch() == pending.epoch()) {
                    pending.future().complete(pending.lastOffset());
                } else {
                    pending.future()
                            .completeExceptionally(new ProposalLostException("epoch " + pending.epoch()
                                    + " ended before offset " + pending.lastOffset() + " committed; epoch "
                                    + landed.epoch()
                                    + " committed there"));
                }
                pendingCount--;
            }
        }
        due.clear();
        if (!pendingByLastOffset.isEmpty() && pendingByLastOffset.firstKey() < first) {
            throw new IllegalStateException("proposals below the commit point " + first + " were never resolved: "
                    + pendingByLastOffset.headMap(first).keySet());
        }
    }

    private void failEverythingWaiting() {
        RaftClosedException closed = new RaftClosedException("the Raft runtime stopped", failure);
        for (List<PendingProposal> waiting : pendingByLastOffset.values()) {
            waiting.forEach(p -> p.future().completeExceptionally(closed));
        }
        pendingByLastOffset.clear();
        pendingCount = 0;
        drainAndFail(closed);
    }

    /** Fails every queued command; safe from any thread once closing (each future completes once). */
    private void drainAndFail(RaftClosedException cause) {
        for (Event event = queue.poll(); event != null; event = queue.poll()) {
            event.fail(cause);
        }
    }

    private record PendingProposal(int epoch, long lastOffset, CompletableFuture<Long> future) {}

    /** What the loop takes from its queue. */
    private sealed interface Event {
        default void fail(RuntimeException cause) {}

        record Inbound(InboundMessage message) implements Event {}

        record Propose(List<byte[]> payloads, CompletableFuture<Long> future) implements Event {
            @Override
            public void fail(RuntimeException cause) {
                future.completeExceptionally(cause);
            }
        }

        record Snapshot(long endOffset, byte[] data, CompletableFuture<SnapshotId> future) implements Event {
            @Override
            public void fail(RuntimeException cause) {
                future.completeExceptionally(cause);
            }
        }

        record Resign(CompletableFuture<Void> future) implements Event {
            @Override
            public void fail(RuntimeException cause) {
                future.completeExceptionally(cause);
            }
        }

        enum Stop implements Event {
            INSTANCE
        }
    }
}

package io.varve.raft;

import io.varve.raft.impl.PendingAppend;
import io.varve.raft.impl.RaftDriver;
import io.varve.raft.log.BatchFrameCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A member of the {@code __cluster_metadata} Raft quorum. Thread-safe facade: every change of state
 * happens on one raft thread, which appends, fsyncs and calls the {@link RaftListener}s in order.
 *
 * <p>Appends waiting for that thread are queued (bounded by {@link RaftConfig#maxPendingAppends()})
 * and written together with a single fsync (group commit).
 */
public final class RaftNode implements MetadataRaft {

    private static final int MAX_APPENDS_PER_FLUSH = 1024;
    private static final long CLOSE_TIMEOUT_SECONDS = 30;

    private final RaftConfig config;
    private final List<RaftListener> listeners = new ArrayList<>();
    private final BlockingQueue<PendingAppend> pendingAppends;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final ExecutorService raftThread;
    private volatile Thread raftThreadInstance;
    private volatile RaftDriver driver;
    private volatile boolean started;
    private volatile boolean closed;

    public RaftNode(RaftConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        if (config.voters().size() != 1) {
            throw new IllegalArgumentException(
                    "only a single-voter quorum is supported yet, got voters " + config.voters());
        }
        this.pendingAppends = new ArrayBlockingQueue<>(config.maxPendingAppends());
        this.raftThread = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "raft-" + config.nodeId());
            thread.setDaemon(true);
            raftThreadInstance = thread;
            return thread;
        });
    }

    /** Adds a listener; listeners are called in registration order. Only before {@link #start()}. */
    @Override
    public synchronized void register(RaftListener listener) {
        Objects.requireNonNull(listener, "listener");
        if (started) {
            throw new IllegalStateException("register listeners before start()");
        }
        listeners.add(listener);
    }

    /**
     * Loads the log and quorum state, replays the whole committed log to the listeners and becomes
     * leader of a new epoch. Returns once all of that is done.
     *
     * @throws RaftException if the log cannot be opened or a listener fails during the replay
     */
    @Override
    public synchronized void start() {
        if (started) {
            throw new IllegalStateException("already started");
        }
        if (closed) {
            throw new IllegalStateException("closed");
        }
        started = true;
        RaftDriver newDriver = new RaftDriver(config, listeners);
        driver = newDriver;
        try {
            raftThread
                    .submit(() -> {
                        newDriver.start();
                        return null;
                    })
                    .get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RaftException("interrupted while starting", e);
        } catch (ExecutionException e) {
            raftThread.execute(newDriver::close);
            throw new RaftException("starting Raft node " + config.nodeId() + " failed", e.getCause());
        }
    }

    /**
     * Appends the payloads as one atomic batch. The future completes with the offset of the last
     * payload once the batch is committed (single voter: fsynced) and after every listener was
     * handed it. It fails with {@link NotLeaderException} if this node is not the leader, and with
     * {@link RaftClosedException} if the node is closed or stopped after a fatal error.
     *
     * <p>The payload arrays are not copied: callers must not modify them afterwards.
     */
    @Override
    public CompletableFuture<Long> append(List<byte[]> payloads) {
        Objects.requireNonNull(payloads, "payloads");
        if (payloads.isEmpty()) {
            throw new IllegalArgumentException("an append holds at least one payload");
        }
        List<byte[]> batch = List.copyOf(payloads);
        int batchBytes = BatchFrameCodec.frameSizeInBytes(batch);
        if (batchBytes > config.maxBatchBytes()) {
            throw new IllegalArgumentException(
                    "batch of " + batchBytes + " bytes exceeds maxBatchBytes " + config.maxBatchBytes());
        }
        CompletableFuture<Long> future = new CompletableFuture<>();
        if (closed) {
            future.completeExceptionally(new RaftClosedException("Raft node " + config.nodeId() + " is closed"));
            return future;
        }
        if (!started) {
            future.completeExceptionally(new NotLeaderException(-1, 0));
            return future;
        }
        if (!pendingAppends.offer(new PendingAppend(batch, future))) {
            future.completeExceptionally(
                    new RaftException("append queue is full (" + config.maxPendingAppends() + " pending appends)"));
            return future;
        }
        scheduleDrain();
        return future;
    }

    private void scheduleDrain() {
        if (drainScheduled.compareAndSet(false, true)) {
            try {
                raftThread.execute(this::drain);
            } catch (RejectedExecutionException e) {
                drainScheduled.set(false);
                List<PendingAppend> left = new ArrayList<>();
                pendingAppends.drainTo(left);
                RaftClosedException closedError =
                        new RaftClosedException("Raft node " + config.nodeId() + " is closed");
                left.forEach(append -> append.future().completeExceptionally(closedError));
            }
        }
    }

    /** On the raft thread: writes what is queued, then reschedules itself if more arrived. */
    private void drain() {
        drainScheduled.set(false);
        List<PendingAppend> appends = new ArrayList<>();
        pendingAppends.drainTo(appends, MAX_APPENDS_PER_FLUSH);
        try {
            driver.handleAppends(appends);
        } catch (RuntimeException e) {
            // An invariant broke: stop serving, and never leave a caller waiting forever.
            driver.failFatally(new RaftException("Raft node " + config.nodeId() + " broke an invariant", e), appends);
        }
        if (!pendingAppends.isEmpty()) {
            scheduleDrain();
        }
    }

    /** The current leader's id, or -1 if none is known (before start, after close or a fatal error). */
    @Override
    public int leaderId() {
        RaftDriver current = driver;
        return current == null ? -1 : current.status().leaderId();
    }

    /** The current epoch (0 before start). */
    @Override
    public int epoch() {
        RaftDriver current = driver;
        return current == null ? 0 : current.status().epoch();
    }

    /** Every entry below this offset is committed and was handed to the listeners. */
    @Override
    public long highWatermark() {
        RaftDriver current = driver;
        return current == null ? 0 : current.status().highWatermark();
    }

    @Override
    public int nodeId() {
        return config.nodeId();
    }

    /**
     * Stops the node: appends already handed to the raft thread finish, later ones fail with
     * {@link RaftClosedException}, and the log is closed. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        RaftDriver current = driver;
        try {
            raftThread.execute(() -> {
                List<PendingAppend> left = new ArrayList<>();
                pendingAppends.drainTo(left);
                if (current != null) {
                    current.reject(left);
                    current.close();
                } else {
                    RaftClosedException closedError = new RaftClosedException("Raft node closed");
                    left.forEach(append -> append.future().completeExceptionally(closedError));
                }
            });
        } catch (RejectedExecutionException e) {
            return; // already shut down
        }
        raftThread.shutdown();
        if (Thread.currentThread() == raftThreadInstance) {
            return; // closed from a listener: the shutdown task runs after the current one
        }
        try {
            if (!raftThread.awaitTermination(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new RaftException("Raft thread did not stop within " + CLOSE_TIMEOUT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package io.varve.raft.node;

import io.varve.raft.MetadataRaft;
import io.varve.raft.NotLeaderException;
import io.varve.raft.RaftClosedException;
import io.varve.raft.RaftException;
import io.varve.raft.RaftListener;
import io.varve.raft.RaftRecord;
import io.varve.raft.core.RaftCoreConfig;
import io.varve.raft.core.SnapshotFormat;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.SnapshotId;
import io.varve.raft.core.message.VoterSet;
import io.varve.raft.core.runtime.SnapshotStore;
import io.varve.raft.core.store.FileQuorumStateStore;
import io.varve.raft.core.store.FileRaftLog;
import io.varve.raft.core.store.FileSnapshotStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metadata log on the KRaft-style stack: a {@link RaftRuntime} over the file stores in {@code
 * <parentDir>/}{@value #DIR_NAME}, seen through {@link MetadataRaft}.
 *
 * <p>Batches. The core commits entries, not batches, and may hand a batch over in several pieces (a chunk
 * limit, a follower's fetch limit). Each entry's payload therefore starts with one byte that says whether
 * the entry ends its batch ({@link MetadataBatches}); committed entries are held back until their batch is complete, so a
 * {@link RaftListener} never sees part of one. A batch cut short by the end of its epoch (a prefix that
 * committed through the next leader's LEADER_CHANGE) is dropped on every replica alike: its proposal failed.
 * Control entries (LEADER_CHANGE, VOTERS) hold offsets but never reach the listeners.
 *
 * <p>A node outside the voters (a broker-only node) runs as an observer: it fetches the log from the leader (found by
 * asking a voter) and never votes or counts; {@link #append} fails there with {@link NotLeaderException}.
 *
 * <p>Errors: {@link NotLeaderException} when not leading (also for a
 * proposal whose epoch ended before it committed), {@link RaftClosedException} once closed.
 */
public final class MetadataRaftRuntime implements MetadataRaft {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataRaftRuntime.class);

    /** The store's directory under the metadata log dir: not the single-voter node's {@code __cluster_metadata-0}. */
    public static final String DIR_NAME = "__cluster_metadata-raft";

    /** Most records in one appended batch: it must fit one follower fetch (the core's {@code maxFetchEntries}). */
    public static final int MAX_BATCH_ENTRIES = MAX_BATCH_PAYLOADS;

    /**
     * The quorum's kind: {@code kraftVersion} 0 is a static quorum of {@code Settings.voters}; 1 a dynamic one (KIP-853)
     * whose voters are in the log (the first entry written at format, {@link #writeBootstrapVoters}), found through
     * {@code bootstrapServers} destinations when this replica knows none; {@code localVoter} is this replica's
     * directory id and endpoints.
     */
    public record Quorum(int kraftVersion, int bootstrapServers, VoterSet.Voter localVoter) {
        public Quorum {
            Objects.requireNonNull(localVoter, "localVoter");
        }

        public static Quorum staticVoters(int nodeId) {
            return new Quorum(0, 0, VoterSet.Voter.of(nodeId));
        }
    }

    /**
     * @param startTimeoutMs how long {@link #start()} waits for a leader and for the log held at start to commit
     * @param timeouts       Kafka's Raft timing keys
     * @param segmentBytes   the size a log segment rolls at ({@code metadata.log.segment.bytes}); a snapshot deletes
     *                       the whole segments below it
     */
    public record Settings(
            int nodeId,
            String clusterId,
            Set<Integer> voters,
            Path parentDir,
            RaftTransport transport,
            long startTimeoutMs,
            QuorumTimeouts timeouts,
            int segmentBytes,
            Quorum quorum) {
        public Settings {
            Objects.requireNonNull(clusterId, "clusterId");
            Objects.requireNonNull(timeouts, "timeouts");
            voters = Set.copyOf(voters);
            Objects.requireNonNull(parentDir, "parentDir");
            Objects.requireNonNull(transport, "transport");
            Objects.requireNonNull(quorum, "quorum");
            if (voters.isEmpty() && quorum.kraftVersion() == 0) {
                throw new IllegalArgumentException("node " + nodeId + " names no voters");
            }
        }

        /**
         * With a static quorum's voters and these timings and segment size. A node that is not a voter is an observer:
         * it fetches the log from the leader and never votes.
         */
        public Settings(
                int nodeId,
                String clusterId,
                Set<Integer> voters,
                Path parentDir,
                RaftTransport transport,
                long startTimeoutMs,
                QuorumTimeouts timeouts,
                int segmentBytes) {
            this(
                    nodeId,
                    clusterId,
                    voters,
                    parentDir,
                    transport,
                    startTimeoutMs,
                    timeouts,
                    segmentBytes,
                    Quorum.staticVoters(nodeId));
        }

        /**
         * A node outside the voters it starts with is an observer: it fetches the log from the leader and never votes
         * (on a dynamic quorum it may be added as a voter later).
         */
        public boolean observer() {
            return !voters.contains(nodeId);
        }

        /** With the store's default segment size. */
        public Settings(
                int nodeId,
                String clusterId,
                Set<Integer> voters,
                Path parentDir,
                RaftTransport transport,
                long startTimeoutMs,
                QuorumTimeouts timeouts) {
            this(
                    nodeId,
                    clusterId,
                    voters,
                    parentDir,
                    transport,
                    startTimeoutMs,
                    timeouts,
                    FileRaftLog.DEFAULT_SEGMENT_BYTES);
        }

        /** With Kafka's default timings and the store's default segment size. */
        public Settings(
                int nodeId,
                String clusterId,
                Set<Integer> voters,
                Path parentDir,
                RaftTransport transport,
                long startTimeoutMs) {
            this(nodeId, clusterId, voters, parentDir, transport, startTimeoutMs, QuorumTimeouts.KAFKA_DEFAULTS);
        }

        boolean singleVoter() {
            return quorum.kraftVersion() == 0 && voters.size() == 1 && !observer();
        }
    }

    private final Settings settings;
    private final List<RaftListener> listeners = new ArrayList<>();
    private final Object progress = new Object();

    // Owned by the runtime's loop thread (the commit listener).
    private final MetadataBatches batches = new MetadataBatches();
    /** This replica's own epoch as leader, not announced until the entries before it reached the listeners. */
    private int unannouncedEpoch = -1;
    /** The offset of that epoch's LEADER_CHANGE entry. */
    private long unannouncedEpochStartOffset;

    private volatile long lastCommittedOffset = -1;
    private volatile int knownLeaderId = -1;
    private volatile int knownEpoch;
    private volatile boolean started;
    private volatile boolean closed;
    private volatile long snapshotsInstalledFromLeader;
    private volatile long snapshotsTaken;
    private volatile long logStartOffset;
    /** The snapshot the store held at start: loading it is a restart, loading any other one is an install. */
    private SnapshotId snapshotAtOpen;

    private FileRaftLog log;
    private RaftRuntime runtime;

    public MetadataRaftRuntime(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /** Where the stores live. */
    public static Path storeDir(Path parentDir) {
        return parentDir.resolve(DIR_NAME);
    }

    @Override
    public synchronized void register(RaftListener listener) {
        Objects.requireNonNull(listener, "listener");
        if (started) {
            throw new IllegalStateException("register listeners before start()");
        }
        listeners.add(listener);
    }

    @Override
    public synchronized void start() {
        if (started || closed) {
            throw new IllegalStateException(started ? "already started" : "closed");
        }
        started = true;
        Path dir = storeDir(settings.parentDir());
        log = FileRaftLog.open(dir, settings.segmentBytes());
        long endAtOpen = log.endOffset();
        logStartOffset = log.startOffset();
        SnapshotStore snapshotStore = new VerifyingSnapshotStore(new FileSnapshotStore(dir));
        snapshotAtOpen = snapshotStore.latest().orElse(null);
        runtime = new RaftRuntime(
                coreConfig(settings.nodeId(), settings.clusterId(), settings.voters(), settings.timeouts())
                        .withQuorum(
                                settings.quorum().kraftVersion(),
                                settings.quorum().bootstrapServers(),
                                settings.quorum().localVoter()),
                RaftRuntimeConfig.defaults(),
                log,
                new FileQuorumStateStore(dir),
                snapshotStore,
                settings.transport(),
                new Listener(),
                RaftRuntime.monotonicClockMs(),
                new Random());
        runtime.start();
        awaitCaughtUp(endAtOpen);
    }

    /** {@link #coreConfig(int, String, Set, QuorumTimeouts)} with Kafka's default timings. */
    public static RaftCoreConfig coreConfig(int nodeId, String clusterId, Set<Integer> voters) {
        return coreConfig(nodeId, clusterId, voters, QuorumTimeouts.KAFKA_DEFAULTS);
    }

    /**
     * The core's settings for the metadata log. A lone voter has no rival to split a vote with: it elects itself
     * after 1 ms (as Kafka's lone voter does at once) rather than after the randomized election timeout.
     */
    public static RaftCoreConfig coreConfig(
            int nodeId, String clusterId, Set<Integer> voters, QuorumTimeouts timeouts) {
        RaftCoreConfig defaults = RaftCoreConfig.defaults(nodeId, clusterId, voters);
        return new RaftCoreConfig(
                defaults.nodeId(),
                defaults.clusterId(),
                defaults.voters(),
                voters.size() == 1 ? 1 : timeouts.electionTimeoutMs(),
                timeouts.electionBackoffMaxMs(),
                timeouts.fetchTimeoutMs(),
                timeouts.requestTimeoutMs(),
                timeouts.retryBackoffMs(),
                defaults.fetchMaxWaitMs(),
                MAX_BATCH_ENTRIES,
                defaults.snapshotChunkBytes(),
                defaults.maxCommittedPerOutput());
    }

    /**
     * Formats a replica of a dynamic quorum with its initial voters (Kafka's {@code kafka-storage format --standalone}
     * or {@code --initial-controllers}, which write them in a bootstrap checkpoint): the voter set becomes the log's
     * first entry, at offset 0 in epoch 0, the same bytes on every replica formatted alike. Refuses a store that holds
     * anything already.
     */
    public static void writeBootstrapVoters(Path parentDir, VoterSet voters) {
        if (voters.isEmpty()) {
            throw new IllegalArgumentException("a bootstrap voter set names at least one voter");
        }
        try (FileRaftLog store = FileRaftLog.open(storeDir(parentDir), FileRaftLog.DEFAULT_SEGMENT_BYTES)) {
            if (store.endOffset() != 0 || store.startOffset() != 0) {
                throw new IllegalStateException("the metadata log in " + storeDir(parentDir) + " is not empty");
            }
            store.append(List.of(new LogEntry(0, 0, EntryType.VOTERS, voters.encode())));
            store.flush();
        }
    }

    /** What the runtime last published (role, leader, voter set); before start, nothing known. */
    public RaftStatus status() {
        RaftRuntime current = runtime;
        return current == null
                ? new RaftStatus(settings.nodeId(), io.varve.raft.core.Role.UNATTACHED, 0, -1, 0, VoterSet.EMPTY)
                : current.status();
    }

    /** Until a leader is known and every entry this replica held at start committed and reached the listeners. */
    private void awaitCaughtUp(long endAtOpen) {
        long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.startTimeoutMs());
        synchronized (progress) {
            while (knownLeaderId < 0 || lastCommittedOffset + 1 < endAtOpen) {
                if (runtime.failure() != null) {
                    throw new RaftException("the metadata Raft runtime failed at start", runtime.failure());
                }
                long leftNanos = deadlineNanos - System.nanoTime();
                if (leftNanos <= 0) {
                    if (settings.singleVoter()) {
                        throw new RaftException("the metadata log did not replay within " + settings.startTimeoutMs()
                                + " ms (committed to " + lastCommittedOffset + " of " + endAtOpen + ")");
                    }
                    LOG.warn(
                            "No metadata quorum leader within {} ms (voters {}): serving what is loaded, catching up"
                                    + " in the background",
                            settings.startTimeoutMs(),
                            settings.voters());
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(progress, Math.min(leftNanos, TimeUnit.MILLISECONDS.toNanos(50)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new RaftException("interrupted while starting", e);
                }
            }
        }
    }

    @Override
    public CompletableFuture<Long> append(List<byte[]> payloads) {
        Objects.requireNonNull(payloads, "payloads");
        if (payloads.isEmpty() || payloads.size() > MAX_BATCH_ENTRIES) {
            throw new IllegalArgumentException(
                    "an append holds 1 to " + MAX_BATCH_ENTRIES + " payloads, got " + payloads.size());
        }
        if (closed) {
            return CompletableFuture.failedFuture(
                    new RaftClosedException("Raft node " + settings.nodeId() + " is closed"));
        }
        RaftRuntime current = runtime;
        if (current == null) {
            return CompletableFuture.failedFuture(new NotLeaderException(-1, 0));
        }
        if (knownLeaderId != settings.nodeId()) {
            // Also while this replica leads but its listeners have not seen every entry before its epoch: a
            // controller validating against that image could create again what the last epoch created.
            return CompletableFuture.failedFuture(new NotLeaderException(knownLeaderId, knownEpoch));
        }
        List<byte[]> framed = MetadataBatches.frame(payloads);
        return current.propose(framed).handle((lastOffset, error) -> {
            if (error == null) {
                return lastOffset;
            }
            Throwable cause = error instanceof CompletionException ? error.getCause() : error;
            if (cause instanceof ProposalLostException) {
                RaftStatus status = current.status();
                throw new NotLeaderException(status.leaderId(), status.epoch());
            }
            throw cause instanceof RuntimeException runtimeError ? runtimeError : new CompletionException(cause);
        });
    }

    /**
     * Stores the snapshot and moves the log start to {@code endOffset} (the store deletes the segments wholly below
     * it). The end must be at a batch boundary the listeners were handed, above the current log start.
     */
    @Override
    public CompletableFuture<Void> snapshot(long endOffset, byte[] snapshot) {
        Objects.requireNonNull(snapshot, "snapshot");
        RaftRuntime current = runtime;
        if (closed || current == null) {
            return CompletableFuture.failedFuture(
                    new RaftClosedException("Raft node " + settings.nodeId() + " is not running"));
        }
        return current.snapshot(endOffset, snapshot).thenAccept(id -> {
            snapshotsTaken++; // on the loop thread, as every write of these
            logStartOffset = id.endOffset();
        });
    }

    /** Snapshots this replica stored of its own state. */
    public long snapshotsTaken() {
        return snapshotsTaken;
    }

    /** Snapshots this replica fetched from the leader (FetchSnapshot) and installed because it was too far behind. */
    public long snapshotsInstalledFromLeader() {
        return snapshotsInstalledFromLeader;
    }

    /** The first offset the local log holds (everything below is in the latest snapshot). */
    public long logStartOffset() {
        return logStartOffset;
    }

    /** As last reported to the listeners (so never ahead of what they saw), -1 once closed. */
    @Override
    public int leaderId() {
        return closed ? -1 : knownLeaderId;
    }

    @Override
    public void handOverLeadership(long timeoutMs) {
        RaftRuntime running = runtime;
        if (running == null
                || closed
                || knownLeaderId != settings.nodeId()
                || running.status().voters().size() <= 1) {
            return;
        }
        long startNanos = System.nanoTime();
        long deadlineNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try {
            running.resign().get(timeoutMs, TimeUnit.MILLISECONDS);
            synchronized (progress) {
                // a successor is announced by its LEADER_CHANGE, which this replica replicates as a follower
                while (knownLeaderId == settings.nodeId() || knownLeaderId < 0) {
                    long leftNanos = deadlineNanos - System.nanoTime();
                    if (leftNanos <= 0 || closed) {
                        break;
                    }
                    TimeUnit.NANOSECONDS.timedWait(progress, leftNanos);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.info("Handing over the metadata quorum's leadership failed ({}); stopping anyway", e.toString());
            return;
        }
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        int successor = knownLeaderId;
        if (successor >= 0 && successor != settings.nodeId()) {
            LOG.info("Handed over the metadata quorum's leadership to node {} in {} ms", successor, elapsedMs);
        } else {
            LOG.info("Resigned the metadata quorum's leadership; no successor was known after {} ms", elapsedMs);
        }
    }

    @Override
    public int epoch() {
        return knownEpoch;
    }

    @Override
    public long highWatermark() {
        RaftRuntime current = runtime;
        return current == null ? 0 : current.status().highWatermark();
    }

    @Override
    public int nodeId() {
        return settings.nodeId();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (runtime != null) {
            runtime.close();
        } else {
            settings.transport().close();
        }
        if (log != null) {
            log.close();
        }
    }

    /**
     * The file store, asking every listener to check a snapshot's state-machine bytes before it is written: a
     * snapshot fetched from the leader that fails (a bad checksum of the metadata's own) throws here, before the core
     * resets the log to it, so the replica stops loudly with its log intact and fetches again once restarted.
     */
    private final class VerifyingSnapshotStore implements SnapshotStore {
        private final SnapshotStore store;

        VerifyingSnapshotStore(SnapshotStore store) {
            this.store = store;
        }

        @Override
        public Optional<SnapshotId> latest() {
            return store.latest();
        }

        @Override
        public long sizeBytes(SnapshotId id) {
            return store.sizeBytes(id);
        }

        @Override
        public byte[] read(SnapshotId id, long position, int maxBytes) {
            return store.read(id, position, maxBytes);
        }

        @Override
        public void write(SnapshotId id, byte[] data) {
            byte[] stateMachineBytes = SnapshotFormat.stateMachineBytes(data);
            for (RaftListener listener : listeners) {
                listener.verifySnapshot(id.endOffset(), stateMachineBytes);
            }
            store.write(id, data);
        }
    }

    /** On the runtime's loop thread. */
    private final class Listener implements CommitListener {
        @Override
        public void onSnapshotLoaded(SnapshotId id, byte[] stateMachineBytes) {
            boolean fromLeader = !id.equals(snapshotAtOpen);
            snapshotAtOpen = null; // a later load of the same id (after a truncation) came from the leader too
            if (fromLeader) {
                LOG.info(
                        "Installed metadata snapshot {} ({} bytes) fetched from the leader by FetchSnapshot: this"
                                + " replica was behind the leader's log start",
                        id,
                        stateMachineBytes.length);
            } else {
                LOG.info("Loading metadata snapshot {} ({} bytes) from disk", id, stateMachineBytes.length);
            }
            batches.clear();
            for (RaftListener listener : listeners) {
                listener.handleSnapshot(id.endOffset(), stateMachineBytes);
            }
            if (fromLeader) {
                snapshotsInstalledFromLeader++;
            }
            logStartOffset = id.endOffset();
            synchronized (progress) {
                lastCommittedOffset = Math.max(lastCommittedOffset, id.endOffset() - 1);
                progress.notifyAll();
            }
            announceOwnLeadershipOnceCaughtUp();
        }

        @Override
        public void onCommitted(List<LogEntry> entries) {
            List<RaftRecord> complete = batches.complete(entries);
            if (!complete.isEmpty()) {
                for (RaftListener listener : listeners) {
                    listener.handleCommit(complete);
                }
            }
            synchronized (progress) {
                lastCommittedOffset = entries.get(entries.size() - 1).offset();
                progress.notifyAll();
            }
            announceOwnLeadershipOnceCaughtUp();
        }

        private void announceOwnLeadershipOnceCaughtUp() {
            if (unannouncedEpoch >= 0 && lastCommittedOffset >= unannouncedEpochStartOffset) {
                int epoch = unannouncedEpoch;
                unannouncedEpoch = -1;
                announce(epoch, settings.nodeId());
            }
        }

        /**
         * Another replica's leadership is announced at once; this replica's own only once every entry before its
         * LEADER_CHANGE has been handed to the listeners (Kafka's rule too): those entries of earlier epochs commit
         * only through it, and until then the loader's image lacks what they did (a topic a failed-over request
         * created, say), so neither the controller nor {@link #append} may act as leader on it.
         */
        @Override
        public void onLeaderChange(int epoch, int leaderId) {
            if (leaderId == settings.nodeId()) {
                long epochStartOffset = log.endOffset() - 1; // the core appended its LEADER_CHANGE last
                if (lastCommittedOffset < epochStartOffset) {
                    unannouncedEpoch = epoch;
                    unannouncedEpochStartOffset = epochStartOffset;
                    return;
                }
            }
            unannouncedEpoch = -1;
            announce(epoch, leaderId);
        }

        private void announce(int epoch, int leaderId) {
            for (RaftListener listener : listeners) {
                listener.handleLeaderChange(leaderId, epoch);
            }
            synchronized (progress) {
                knownEpoch = epoch;
                knownLeaderId = leaderId;
                progress.notifyAll();
            }
        }
    }
}

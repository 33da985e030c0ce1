package io.varve.raft.impl;

import io.varve.raft.NotLeaderException;
import io.varve.raft.RaftClosedException;
import io.varve.raft.RaftConfig;
import io.varve.raft.RaftException;
import io.varve.raft.RaftListener;
import io.varve.raft.log.FileRaftLog;
import io.varve.raft.log.LogBatch;
import io.varve.raft.log.RaftLog;
import io.varve.raft.state.CandidateState;
import io.varve.raft.state.FileQuorumStateStore;
import io.varve.raft.state.LeaderState;
import io.varve.raft.state.QuorumState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's behaviour on the raft thread: start-up, leader appends, commit delivery, shutdown.
 * Every method must be called from that one thread; only {@link #status()} may be read elsewhere.
 *
 * <p>A failure of the log or of a listener is fatal: the node stops serving (it can no longer
 * promise that what it acknowledges is durable and applied in order) and fails every later append.
 */
public final class RaftDriver {

    private static final Logger LOG = LoggerFactory.getLogger(RaftDriver.class);

    private final RaftConfig config;
    private final List<RaftListener> listeners;
    private RaftLog log;
    private QuorumState quorum;
    private CommitDispatcher dispatcher;
    private RaftException fatalError;
    private boolean closed;
    private volatile RaftStatus status = RaftStatus.NOT_STARTED;

    public RaftDriver(RaftConfig config, List<RaftListener> listeners) {
        this.config = config;
        this.listeners = List.copyOf(listeners);
    }

    public RaftStatus status() {
        return status;
    }

    /**
     * Opens the log and quorum state, replays the committed log to the listeners, then (single
     * voter) elects the local node leader of a new epoch.
     */
    public void start() throws IOException {
        if (config.voters().size() != 1) {
            throw new UnsupportedOperationException("only a single-voter quorum is supported, got " + config.voters());
        }
        log = FileRaftLog.open(config.metadataLogDir());
        quorum = new QuorumState(config.nodeId(), config.voters(), new FileQuorumStateStore(config.metadataLogDir()));
        quorum.initialize(log.lastEpoch());
        dispatcher = new CommitDispatcher(listeners, config.maxRecordsPerDelivery());

        // With one voter, every durable entry was acknowledged by the whole quorum: all is committed.
        long highWatermark = log.endOffset();
        publishStatus(highWatermark);
        dispatcher.catchUp(log, highWatermark);

        CandidateState candidate = quorum.transitionToCandidate();
        if (!candidate.hasMajority()) {
            throw new IllegalStateException("a single voter always holds the majority");
        }
        LeaderState leader = quorum.transitionToLeader(log.endOffset(), highWatermark);
        publishStatus(leader.highWatermark());
        LOG.info(
                "Raft node {} is leader of {} in epoch {} (log end offset {})",
                config.nodeId(),
                RaftConfig.METADATA_TOPIC_NAME,
                leader.epoch(),
                log.endOffset());
        dispatcher.leaderChanged(config.nodeId(), leader.epoch());
    }

    /**
     * Appends each pending batch, makes them durable with one fsync, delivers the newly committed
     * batches to the listeners and only then completes the futures.
     */
    public void handleAppends(List<PendingAppend> appends) {
        if (appends.isEmpty()) {
            return;
        }
        RaftException refusal = refusal();
        if (refusal != null) {
            appends.forEach(append -> append.future().completeExceptionally(refusal));
            return;
        }
        LeaderState leader = quorum.leaderStateOrThrow();
        List<LogBatch> written = new ArrayList<>(appends.size());
        try {
            for (PendingAppend append : appends) {
                written.add(log.append(leader.epoch(), append.payloads()));
            }
            log.flush();
        } catch (IOException | RuntimeException e) {
            fail(new RaftException("appending to the Raft log failed", e), appends);
            return;
        }
        leader.updateEndOffset(config.nodeId(), log.flushedEndOffset());
        try {
            dispatcher.deliver(written);
        } catch (RuntimeException e) {
            fail(new RaftException("a Raft listener failed to apply committed records", e), appends);
            return;
        }
        publishStatus(leader.highWatermark());
        if (dispatcher.nextOffset() != leader.highWatermark()) {
            throw new IllegalStateException(
                    "delivered up to " + dispatcher.nextOffset() + " but high watermark is " + leader.highWatermark());
        }
        for (int i = 0; i < appends.size(); i++) {
            appends.get(i).future().complete(written.get(i).lastOffset());
        }
    }

    /** Why an append cannot be accepted now, or null if it can. */
    private RaftException refusal() {
        if (closed) {
            return new RaftClosedException("Raft node " + config.nodeId() + " is closed");
        }
        if (fatalError != null) {
            return new RaftClosedException("Raft node " + config.nodeId() + " stopped after a fatal error", fatalError);
        }
        if (quorum == null || !quorum.isLeader()) {
            return new NotLeaderException(quorum == null ? -1 : quorum.leaderId(), quorum == null ? 0 : quorum.epoch());
        }
        return null;
    }

    /** Stops serving for good and fails the given appends (those not completed yet). */
    public void failFatally(RaftException error, List<PendingAppend> appends) {
        fail(error, appends);
    }

    private void fail(RaftException error, List<PendingAppend> appends) {
        LOG.error("Raft node {} stops serving after a fatal error", config.nodeId(), error);
        fatalError = error;
        status = new RaftStatus(-1, status.epoch(), status.highWatermark());
        appends.forEach(append -> append.future().completeExceptionally(error));
    }

    private void publishStatus(long highWatermark) {
        status = new RaftStatus(quorum.leaderId(), quorum.epoch(), highWatermark);
    }

    /** Fails appends that arrive after (or are left over at) shutdown. */
    public void reject(List<PendingAppend> appends) {
        RaftException refusal = refusal();
        RaftException error = refusal != null ? refusal : new RaftClosedException("Raft node is closing");
        appends.forEach(append -> append.future().completeExceptionally(error));
    }

    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        status = new RaftStatus(-1, status.epoch(), status.highWatermark());
        if (log != null) {
            try {
                log.close();
            } catch (IOException e) {
                LOG.warn("Closing the Raft log failed", e);
            }
        }
        LOG.info("Raft node {} closed", config.nodeId());
    }
}

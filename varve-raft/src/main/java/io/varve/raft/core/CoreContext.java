package io.varve.raft.core;

import static io.varve.raft.core.message.RaftMessage.NO_ID;

import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.OffsetAndEpoch;
import io.varve.raft.core.message.OutboundMessage;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.RaftRequest;
import io.varve.raft.core.message.RaftResponse;
import io.varve.raft.core.message.VoterSet;
import io.varve.raft.core.runtime.SnapshotStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * What every handler shares within one replica: its configuration, seams, role, high watermark,
 * pending requests and the messages collected during the current call. Also the one place where a
 * replica reacts to learning of a newer epoch or of this epoch's leader.
 */
final class CoreContext {
    /** Messages one call may emit; a call that produces more has a bug (each peer gets a few). */
    static final int MAX_MESSAGES_PER_CALL = 4096;

    final RaftCoreConfig config;
    final VoterTrackingLog log;
    final SnapshotStore snapshots;
    final QuorumState quorum;
    final CommitTracker commits;
    final PendingRequests pending;
    final VoteRule voteRule;
    final Random random;
    private final List<OutboundMessage> outbox = new ArrayList<>();

    CoreContext(
            RaftCoreConfig config,
            VoterTrackingLog log,
            SnapshotStore snapshots,
            QuorumState quorum,
            CommitTracker commits,
            VoteRule voteRule,
            Random random) {
        this.config = config;
        this.log = log;
        this.snapshots = snapshots;
        this.quorum = quorum;
        this.commits = commits;
        this.voteRule = voteRule;
        this.random = random;
        this.pending = new PendingRequests(4 * VoterSet.MAX_VOTERS + 64, random.nextLong() >>> 1);
    }

    int nodeId() {
        return config.nodeId();
    }

    /** The voter set in effect: the last VOTERS entry appended, else the snapshot's or the bootstrap set. */
    VoterSet voters() {
        return log.history.current();
    }

    int epoch() {
        return quorum.epoch();
    }

    EpochState state() {
        return quorum.state();
    }

    /** This replica's log end: end offset and the epoch of the last entry. */
    OffsetAndEpoch logEnd() {
        return new OffsetAndEpoch(log.endOffset(), log.lastEpoch());
    }

    void send(int destinationId, RaftRequest request, long nowMs) {
        if (destinationId == nodeId()) {
            throw new IllegalStateException("a replica never sends to itself");
        }
        long correlationId = pending.register(destinationId, request.getClass(), nowMs);
        emit(new OutboundMessage(destinationId, correlationId, request));
    }

    void respond(InboundMessage request, RaftResponse response) {
        respond(request.sourceId(), request.correlationId(), response);
    }

    void respond(int destinationId, long correlationId, RaftResponse response) {
        emit(new OutboundMessage(destinationId, correlationId, response));
    }

    private void emit(OutboundMessage message) {
        if (outbox.size() >= MAX_MESSAGES_PER_CALL) {
            throw new IllegalStateException("more than " + MAX_MESSAGES_PER_CALL + " messages in one call");
        }
        outbox.add(message);
    }

    List<OutboundMessage> drainOutbox() {
        List<OutboundMessage> out = List.copyOf(outbox);
        outbox.clear();
        return out;
    }

    /** Kafka's answer to a request for another cluster, or {@code NONE}. */
    RaftError checkCluster(RaftRequest request) {
        return checkCluster(request.clusterId());
    }

    /**
     * INCONSISTENT_CLUSTER_ID for another cluster's id; a request without one (null: Kafka's admin client sends
     * AddRaftVoter and RemoveRaftVoter so) is not checked, as Kafka does not.
     */
    RaftError checkCluster(String clusterId) {
        return clusterId == null || config.clusterId().equals(clusterId)
                ? RaftError.NONE
                : RaftError.INCONSISTENT_CLUSTER_ID;
    }

    /**
     * Reacts to a message that names an epoch and maybe its leader: a higher epoch is adopted (as its
     * follower when the leader is named, unattached otherwise); the leader of the current epoch is
     * followed by a replica that did not know it. Returns whether the role changed.
     */
    boolean observeLeader(int epoch, int leaderId, long nowMs) {
        int current = epoch();
        if (epoch > current) {
            if (leaderId == nodeId()) {
                throw new IllegalStateException("node " + nodeId() + " is named leader of epoch " + epoch
                        + " it never reached (at " + current + ")");
            }
            if (leaderId >= 0) {
                becomeFollower(epoch, leaderId, nowMs);
            } else {
                becomeUnattached(epoch, NO_ID, nowMs + quorum.randomElectionTimeoutMs(), nowMs);
            }
            return true;
        }
        if (epoch == current && leaderId >= 0 && leaderId != nodeId() && state().leaderId() != leaderId) {
            becomeFollower(epoch, leaderId, nowMs);
            return true;
        }
        return false;
    }

    FollowerState becomeFollower(int epoch, int leaderId, long nowMs) {
        pending.clear();
        return quorum.transitionToFollower(epoch, leaderId, nowMs);
    }

    void becomeUnattached(int epoch, int voteFor, long electionDeadlineMs, long nowMs) {
        pending.clear();
        quorum.transitionToUnattached(epoch, voteFor, electionDeadlineMs, nowMs);
    }
}

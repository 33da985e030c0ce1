package io.varve.raft.core;

import static io.varve.raft.core.message.RaftMessage.NO_ID;

import io.varve.raft.core.message.BeginQuorumEpochRequest;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.VoteRequest;
import io.varve.raft.core.message.VoteResponse;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Elections: the Vote request and response, both as pre-vote (KIP-996) and real vote (KIP-595), and
 * the steps they trigger: prospective to candidate to leader.
 */
final class VoteHandler {
    private final CoreContext ctx;

    VoteHandler(CoreContext ctx) {
        this.ctx = ctx;
    }

    void handleRequest(InboundMessage in, VoteRequest request, long nowMs) {
        RaftError clusterError = ctx.checkCluster(request);
        if (clusterError != RaftError.NONE) {
            reply(in, clusterError, false);
            return;
        }
        if (request.voterId() != ctx.nodeId()) {
            reply(in, RaftError.INCONSISTENT_VOTER_SET, false);
            return;
        }
        // Neither this replica nor the candidate need be in this replica's voter set: sets change with
        // uncommitted VOTERS entries, so ours may be stale (a replica that appended its own removal must
        // still vote, or the old set can never elect the leader that truncates that removal away). A
        // ballot only counts answers from the candidate's own voter set, which keeps elections safe.
        if (request.preVote()) {
            reply(in, RaftError.NONE, grantsPreVote(request, nowMs));
            return;
        }
        if (request.replicaEpoch() > ctx.epoch()) {
            // Adopt the epoch first (persisted), then judge the vote in it.
            ctx.becomeUnattached(request.replicaEpoch(), NO_ID, nowMs + ctx.quorum.randomElectionTimeoutMs(), nowMs);
        }
        boolean grant = grantsVote(request);
        if (grant && ctx.quorum.votedId() != request.replicaId()) {
            // The vote is durable before the answer leaves (QuorumState persists on every change).
            ctx.becomeUnattached(ctx.epoch(), request.replicaId(), nowMs + ctx.quorum.randomElectionTimeoutMs(), nowMs);
        }
        reply(in, RaftError.NONE, grant);
    }

    /**
     * A pre-vote never changes this replica's state. It is refused to an older epoch, to a log behind
     * ours, and while this replica leads or hears from a leader (so a replica that lost contact alone
     * cannot disturb a healthy quorum).
     */
    private boolean grantsPreVote(VoteRequest request, long nowMs) {
        if (request.replicaEpoch() < ctx.epoch()) {
            return false;
        }
        EpochState state = ctx.state();
        if (state instanceof LeaderState) {
            return false;
        }
        if (state instanceof FollowerState follower
                && follower.heardFromLeaderWithin(ctx.config.fetchTimeoutMs(), nowMs)) {
            return false;
        }
        return ctx.voteRule.candidateIsUpToDate(request.candidateLogEnd(), ctx.logEnd());
    }

    /** A real vote in the current epoch: one per epoch, only to a log at least as up to date, never with a leader. */
    private boolean grantsVote(VoteRequest request) {
        if (request.replicaEpoch() != ctx.epoch()) {
            return false;
        }
        Role role = ctx.quorum.role();
        if (role != Role.UNATTACHED && role != Role.PROSPECTIVE) {
            return false;
        }
        int voted = ctx.quorum.votedId();
        if (voted != NO_ID) {
            return voted == request.replicaId();
        }
        return ctx.voteRule.candidateIsUpToDate(request.candidateLogEnd(), ctx.logEnd());
    }

    private void reply(InboundMessage in, RaftError error, boolean granted) {
        EpochState state = ctx.state();
        ctx.respond(in, new VoteResponse(error, state.leaderId(), state.epoch(), granted));
    }

    void handleResponse(InboundMessage in, VoteResponse response, long nowMs) {
        if (response.error() != RaftError.NONE || !ctx.quorum.mayCampaign()) {
            return;
        }
        EpochState state = ctx.state();
        if (state instanceof ProspectiveState prospective && response.leaderEpoch() <= prospective.epoch()) {
            prospective.ballot.record(in.sourceId(), response.voteGranted());
            afterBallot(prospective.ballot, nowMs);
        } else if (state instanceof CandidateState candidate && response.leaderEpoch() == candidate.epoch()) {
            candidate.ballot.record(in.sourceId(), response.voteGranted());
            afterBallot(candidate.ballot, nowMs);
        }
    }

    private void afterBallot(Ballot ballot, long nowMs) {
        EpochState state = ctx.state();
        if (ballot.won()) {
            if (state instanceof ProspectiveState) {
                startElection(nowMs);
            } else {
                becomeLeader(nowMs);
            }
        } else if (ballot.lost()) {
            // Try again after a random backoff rather than wait out the whole election timeout.
            long retryAtMs = nowMs + ctx.quorum.randomBackoffMs();
            if (state instanceof ProspectiveState prospective) {
                prospective.electionDeadlineMs = Math.min(prospective.electionDeadlineMs, retryAtMs);
            } else if (state instanceof CandidateState candidate) {
                candidate.electionDeadlineMs = Math.min(candidate.electionDeadlineMs, retryAtMs);
            }
        }
    }

    /** Election timer or fetch timeout: ask for pre-votes in the current epoch. */
    void startPreVote(long nowMs) {
        ctx.pending.clear();
        ProspectiveState prospective = ctx.quorum.transitionToProspective(nowMs);
        if (prospective.ballot.won()) {
            startElection(nowMs);
            return;
        }
        requestVotes(prospective.epoch(), true, nowMs);
    }

    private void startElection(long nowMs) {
        ctx.pending.clear();
        CandidateState candidate = ctx.quorum.transitionToCandidate(nowMs);
        if (candidate.ballot.won()) {
            becomeLeader(nowMs);
            return;
        }
        requestVotes(candidate.epoch(), false, nowMs);
    }

    private void requestVotes(int epoch, boolean preVote, long nowMs) {
        for (int voter : ctx.voters().ids()) {
            if (voter != ctx.nodeId()) {
                ctx.send(
                        voter,
                        new VoteRequest(
                                ctx.config.clusterId(),
                                voter,
                                epoch,
                                ctx.nodeId(),
                                ctx.log.lastEpoch(),
                                ctx.log.endOffset(),
                                preVote),
                        nowMs);
            }
        }
    }

    /** Leads the epoch: its first entry is a LeaderChange, the entry through which older ones commit. */
    private void becomeLeader(long nowMs) {
        ctx.pending.clear();
        long epochStartOffset = ctx.log.endOffset();
        LeaderState leader = ctx.quorum.transitionToLeader(epochStartOffset, nowMs);
        byte[] payload = ByteBuffer.allocate(4).putInt(ctx.nodeId()).array();
        ctx.log.append(List.of(new LogEntry(epochStartOffset, leader.epoch(), EntryType.LEADER_CHANGE, payload)));
        sendBeginQuorumEpoch(leader, nowMs);
    }

    /** Tells the voters that have not fetched yet that this replica leads; resent until they fetch. */
    void sendBeginQuorumEpoch(LeaderState leader, long nowMs) {
        for (int voter : leader.votersNotYetFetched(ctx.voters())) {
            if (!ctx.pending.hasPending(voter, BeginQuorumEpochRequest.class)) {
                ctx.send(
                        voter,
                        new BeginQuorumEpochRequest(ctx.config.clusterId(), voter, leader.epoch(), ctx.nodeId()),
                        nowMs);
            }
        }
        leader.beginQuorumResendAtMs = nowMs + ctx.config.requestTimeoutMs();
    }
}

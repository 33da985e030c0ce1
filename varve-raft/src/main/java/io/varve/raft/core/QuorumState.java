package io.varve.raft.core;

import static io.varve.raft.core.message.RaftMessage.NO_ID;

import io.varve.raft.core.message.VoterSet;
import io.varve.raft.core.runtime.ElectionRecord;
import io.varve.raft.core.runtime.QuorumStateStore;
import java.util.List;
import java.util.Random;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica's role in its current epoch, the vote it cast in that epoch, and the only place roles
 * change. Every transition checks it is allowed and persists the {@link ElectionRecord} before the new
 * role acts (so a vote is durable before it is sent, an epoch before it is used).
 *
 * <p>Allowed transitions ("-" is refused and fails loudly; "higher epoch" means an epoch above the
 * current one, learned from any message):
 *
 * <pre>
 * from \ to   | Unattached         | Prospective      | Candidate     | Leader   | Follower              | Resigned
 * ------------+--------------------+------------------+---------------+----------+-----------------------+---------
 * Unattached  | higher epoch;      | election timeout | -             | -        | leader of this or a   | -
 *             | vote in this epoch |                  |               |          | higher epoch          |
 * Prospective | higher epoch;      | timeout (retry)  | pre-vote won  | -        | leader of this or a   | -
 *             | vote; EndQuorum    |                  | (epoch + 1)   |          | higher epoch          |
 * Candidate   | higher epoch       | lost / timed out | -             | vote won | leader of this or a   | -
 *             |                    |                  |               |          | higher epoch          |
 * Leader      | higher epoch       | -                | -             | -        | leader of higher epoch| resign
 * Follower    | higher epoch;      | fetch timeout    | -             | -        | leader of higher epoch| -
 *             | EndQuorumEpoch;    |                  |               |          |                       |
 *             | observer timeout   |                  |               |          |                       |
 * Resigned    | higher epoch       | election timeout | -             | -        | leader of higher epoch| -
 * </pre>
 *
 * <p>Observers (replicas outside the voter set) are only ever Unattached or Follower: they never run an
 * election, never vote and never lead. The voter set changes with VOTERS log entries (KIP-853): a replica
 * removed from it while Prospective, Candidate or Resigned becomes Unattached in the same epoch, and a
 * removed leader resigns once its removal commits.
 */
final class QuorumState {
    private static final Logger LOG = LoggerFactory.getLogger(QuorumState.class);

    private final RaftCoreConfig config;
    private final VoterHistory voters;
    private final CommitTracker commits;
    private final QuorumStateStore store;
    private final Random random;
    private EpochState state;
    private int votedId;
    private ElectionRecord written;

    QuorumState(
            RaftCoreConfig config,
            VoterHistory voters,
            CommitTracker commits,
            QuorumStateStore store,
            Random random,
            int logLastEpoch,
            long nowMs) {
        this.config = config;
        this.voters = voters;
        this.commits = commits;
        this.store = store;
        this.random = random;
        ElectionRecord record = store.read().orElse(ElectionRecord.initial());
        this.written = record;
        int epoch = Math.max(record.epoch(), logLastEpoch);
        boolean sameEpoch = epoch == record.epoch();
        this.votedId = sameEpoch ? record.votedId() : NO_ID;
        int leaderId = sameEpoch ? record.leaderId() : NO_ID;
        if (leaderId == config.nodeId()) {
            // A leader that restarts cannot resume: its in-memory progress is gone.
            this.state = new ResignedState(epoch, List.of(), nowMs + randomElectionTimeoutMs());
        } else if (leaderId >= 0 && leaderId != config.nodeId()) {
            this.state = new FollowerState(epoch, leaderId, config.fetchTimeoutMs(), nowMs);
        } else {
            this.state = newUnattached(epoch, nowMs, nowMs + randomElectionTimeoutMs());
        }
        persist();
    }

    EpochState state() {
        return state;
    }

    int epoch() {
        return state.epoch();
    }

    int votedId() {
        return votedId;
    }

    Role role() {
        return state.role();
    }

    /** Whether this replica is in the voter set in effect (it changes with VOTERS entries, KIP-853). */
    boolean isVoter() {
        return voters.current().contains(config.nodeId());
    }

    VoterSet voters() {
        return voters.current();
    }

    /**
     * Whether this replica may run an election: it is a voter, or the last voter change removed it and
     * is not known to be committed. The second case keeps the old set live: a leader that appended its
     * own removal and was then cut off may hold the longest log, and the old set cannot elect anyone
     * without it. Its ballot counts the set in effect (without itself), which keeps the election safe.
     */
    boolean mayCampaign() {
        if (isVoter()) {
            return true;
        }
        long change = voters.lastChangeOffset();
        return change >= commits.highWatermark() && voters.at(change).contains(config.nodeId());
    }

    /** No leader known: a higher epoch, or a vote (or EndQuorumEpoch) in this one. */
    void transitionToUnattached(int epoch, int voteFor, long electionDeadlineMs, long nowMs) {
        int current = state.epoch();
        if (epoch < current) {
            throw illegal("unattached in epoch " + epoch);
        }
        if (epoch == current) {
            Role role = state.role();
            boolean removed = !mayCampaign() && role != Role.LEADER;
            if (role != Role.UNATTACHED && role != Role.PROSPECTIVE && role != Role.FOLLOWER && !removed) {
                throw illegal("unattached in the same epoch " + epoch);
            }
            if (voteFor != NO_ID && votedId != NO_ID && votedId != voteFor) {
                throw illegal("a second vote in epoch " + epoch + " for " + voteFor);
            }
        } else {
            votedId = NO_ID;
        }
        if (voteFor != NO_ID) {
            require(voteFor >= 0, "a vote names a replica");
            votedId = voteFor;
        }
        switchTo(newUnattached(epoch, nowMs, electionDeadlineMs));
    }

    /** A voter whose election timer or fetch timeout fired asks for pre-votes in its current epoch. */
    ProspectiveState transitionToProspective(long nowMs) {
        require(mayCampaign(), "an observer never runs an election");
        Role role = state.role();
        require(role != Role.LEADER, "a leader never becomes prospective without resigning");
        // Another pre-vote round of the same epoch keeps the leader it doubts, and since when.
        ProspectiveState again = state instanceof ProspectiveState p ? p : null;
        int retainedLeader = role == Role.FOLLOWER ? state.leaderId() : again != null ? again.retainedLeaderId : NO_ID;
        long doubtingSinceMs = again != null ? again.doubtingSinceMs : nowMs;
        ProspectiveState next = new ProspectiveState(
                state.epoch(),
                retainedLeader,
                doubtingSinceMs,
                new Ballot(voters().ids(), config.nodeId()),
                nowMs + randomElectionTimeoutMs());
        switchTo(next);
        return next;
    }

    /** A prospective that won its pre-vote bumps the epoch and votes for itself. */
    CandidateState transitionToCandidate(long nowMs) {
        require(state.role() == Role.PROSPECTIVE, "only a prospective that won its pre-vote becomes candidate");
        require(((ProspectiveState) state).ballot.won(), "the pre-vote was not won");
        votedId = config.nodeId();
        CandidateState next = new CandidateState(
                state.epoch() + 1, new Ballot(voters().ids(), config.nodeId()), nowMs + randomElectionTimeoutMs());
        switchTo(next);
        return next;
    }

    LeaderState transitionToLeader(long epochStartOffset, long nowMs) {
        require(state.role() == Role.CANDIDATE, "only a candidate becomes leader");
        require(((CandidateState) state).ballot.won(), "the election was not won");
        require(mayCampaign(), "only a voter leads");
        LeaderState next = new LeaderState(state.epoch(), config.nodeId(), epochStartOffset, nowMs);
        switchTo(next);
        LOG.info("Node {} is the leader of epoch {}", config.nodeId(), next.epoch());
        return next;
    }

    FollowerState transitionToFollower(int epoch, int leaderId, long nowMs) {
        require(leaderId >= 0 && leaderId != config.nodeId(), "follow another replica: " + leaderId);
        int current = state.epoch();
        if (epoch < current) {
            throw illegal("follower of " + leaderId + " in older epoch " + epoch);
        }
        if (epoch == current) {
            Role role = state.role();
            if (role == Role.LEADER || role == Role.RESIGNED) {
                throw illegal("a second leader " + leaderId + " in epoch " + epoch);
            }
            if (role == Role.FOLLOWER && state.leaderId() != leaderId) {
                throw illegal("a second leader " + leaderId + " in epoch " + epoch);
            }
        } else {
            votedId = NO_ID;
        }
        FollowerState next = new FollowerState(epoch, leaderId, config.fetchTimeoutMs(), nowMs);
        switchTo(next);
        return next;
    }

    ResignedState transitionToResigned(List<Integer> preferredSuccessors, long nowMs) {
        require(state.role() == Role.LEADER, "only a leader resigns");
        ResignedState next = new ResignedState(state.epoch(), preferredSuccessors, nowMs + randomElectionTimeoutMs());
        switchTo(next);
        LOG.info("Node {} resigned as leader of epoch {}", config.nodeId(), next.epoch());
        return next;
    }

    long randomElectionTimeoutMs() {
        return config.electionTimeoutMs() + random.nextInt(config.electionTimeoutMs());
    }

    /** A random wait before the next election attempt, so that rivals do not split the vote forever. */
    long randomBackoffMs() {
        return 1 + random.nextInt(config.electionBackoffMaxMs());
    }

    /** A voter uses the election deadline, an observer the discovery deadline; either may become the other. */
    private UnattachedState newUnattached(int epoch, long nowMs, long electionDeadlineMs) {
        long deadlineMs = electionDeadlineMs == Long.MAX_VALUE ? nowMs + randomElectionTimeoutMs() : electionDeadlineMs;
        return new UnattachedState(epoch, deadlineMs, nowMs);
    }

    private void switchTo(EpochState next) {
        if (!mayCampaign()) {
            // A leader removed from the voter set (KIP-853) resigns; otherwise observers only watch.
            require(
                    next.role() == Role.UNATTACHED || next.role() == Role.FOLLOWER || next.role() == Role.RESIGNED,
                    "observer in " + next.role());
        }
        require(next.epoch() >= state.epoch(), "epochs never go back");
        state = next;
        persist();
    }

    private void persist() {
        ElectionRecord record = new ElectionRecord(state.epoch(), votedId, state.leaderId());
        if (!record.equals(written)) {
            store.write(record);
            written = record;
        }
    }

    private IllegalStateException illegal(String what) {
        return new IllegalStateException("node " + config.nodeId() + " in " + state.role() + " of epoch "
                + state.epoch() + " cannot become " + what);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException(message);
        }
    }
}

package io.varve.raft.state;

import java.io.IOException;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The role of the local node and the rules for changing it. Every transition persists the new
 * {@link ElectionState} before it takes effect, so a restarted node never reuses an epoch or votes
 * twice in one. Not thread-safe: used on the raft thread only.
 */
public final class QuorumState {

    private static final Logger LOG = LoggerFactory.getLogger(QuorumState.class);

    private final int localId;
    private final Set<Integer> voters;
    private final QuorumStateStore store;
    private EpochState state;

    public QuorumState(int localId, Set<Integer> voters, QuorumStateStore store) {
        if (!voters.contains(localId)) {
            throw new IllegalArgumentException(localId + " is not one of the voters " + voters);
        }
        this.localId = localId;
        this.voters = Set.copyOf(voters);
        this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * Loads the persisted state. The node starts unattached in the stored epoch, or in the log's
     * last epoch if the stored state is missing or behind the log (it cannot be ahead of it by Raft's
     * rules, but a lost state file must not make the node reuse an epoch).
     */
    public void initialize(int logLastEpoch) throws IOException {
        ElectionState stored = store.read().orElse(ElectionState.initial());
        if (stored.epoch() < logLastEpoch) {
            LOG.warn(
                    "Stored quorum state epoch {} is behind the log's last epoch {}; continuing from the log",
                    stored.epoch(),
                    logLastEpoch);
            state = new UnattachedState(logLastEpoch, ElectionState.NONE);
        } else {
            // A leader from before the restart is not assumed to still lead; the vote is kept.
            state = new UnattachedState(stored.epoch(), stored.votedId());
        }
    }

    /** Starts an election in the next epoch, voting for itself. */
    public CandidateState transitionToCandidate() throws IOException {
        ensureInitialized();
        if (state instanceof LeaderState) {
            throw new IllegalStateException("a leader does not become a candidate");
        }
        CandidateState candidate = new CandidateState(localId, state.epoch() + 1, voters);
        transitionTo(candidate);
        return candidate;
    }

    /**
     * Takes leadership of the candidate's epoch once it holds a majority of votes.
     *
     * @param epochStartOffset the log end offset at election: entries of this epoch start here
     * @param highWatermark    the offset below which entries are already known to be committed
     */
    public LeaderState transitionToLeader(long epochStartOffset, long highWatermark) throws IOException {
        if (!(state instanceof CandidateState candidate) || !candidate.hasMajority()) {
            throw new IllegalStateException(
                    "only a candidate with a majority becomes leader; state is " + state.name());
        }
        LeaderState leader = new LeaderState(localId, candidate.epoch(), voters, epochStartOffset, highWatermark);
        transitionTo(leader);
        return leader;
    }

    private void transitionTo(EpochState next) throws IOException {
        if (next.epoch() < state.epoch()) {
            throw new IllegalStateException("epoch cannot go back from " + state.epoch() + " to " + next.epoch());
        }
        store.write(next.election());
        LOG.info(
                "Raft node {} transitioned from {} in epoch {} to {} in epoch {}",
                localId,
                state.name(),
                state.epoch(),
                next.name(),
                next.epoch());
        state = next;
    }

    private void ensureInitialized() {
        if (state == null) {
            throw new IllegalStateException("initialize() first");
        }
    }

    public EpochState current() {
        ensureInitialized();
        return state;
    }

    public int epoch() {
        return current().epoch();
    }

    public int leaderId() {
        return current().leaderId();
    }

    public boolean isLeader() {
        return state instanceof LeaderState;
    }

    public LeaderState leaderStateOrThrow() {
        if (state instanceof LeaderState leader) {
            return leader;
        }
        throw new IllegalStateException("not the leader; state is " + (state == null ? "uninitialized" : state.name()));
    }

    public int localId() {
        return localId;
    }

    public Set<Integer> voters() {
        return voters;
    }
}

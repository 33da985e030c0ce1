package io.varve.raft.state;

import java.util.HashSet;
import java.util.Set;

/** Voted for itself in a new epoch and collects votes from the other voters. */
public final class CandidateState implements EpochState {

    private final int localId;
    private final int epoch;
    private final Set<Integer> voters;
    private final Set<Integer> grantedVotes = new HashSet<>();

    CandidateState(int localId, int epoch, Set<Integer> voters) {
        this.localId = localId;
        this.epoch = epoch;
        this.voters = Set.copyOf(voters);
        grantedVotes.add(localId);
    }

    /** Records a granted vote; returns true once a majority of voters granted theirs. */
    public boolean recordGrantedVote(int voterId) {
        if (!voters.contains(voterId)) {
            throw new IllegalArgumentException(voterId + " is not a voter of " + voters);
        }
        grantedVotes.add(voterId);
        return hasMajority();
    }

    public boolean hasMajority() {
        return grantedVotes.size() > voters.size() / 2;
    }

    @Override
    public int epoch() {
        return epoch;
    }

    @Override
    public int leaderId() {
        return ElectionState.NONE;
    }

    @Override
    public ElectionState election() {
        return new ElectionState(epoch, localId, ElectionState.NONE);
    }

    @Override
    public String name() {
        return "Candidate";
    }
}

package io.varve.raft.core;

import java.util.HashSet;
import java.util.Set;

/** The votes one election round collected (a pre-vote or a real vote), counted against the voter set. */
final class Ballot {
    private final Set<Integer> voters;
    private final Set<Integer> granted = new HashSet<>();
    private final Set<Integer> rejected = new HashSet<>();

    /** Counts against {@code voters}; the candidate's own vote counts only if it is one of them (KIP-853). */
    Ballot(Set<Integer> voters, int selfId) {
        this.voters = voters;
        if (voters.contains(selfId)) {
            granted.add(selfId);
        }
    }

    void record(int voterId, boolean grant) {
        if (!voters.contains(voterId)) {
            return;
        }
        if (grant) {
            rejected.remove(voterId);
            granted.add(voterId);
        } else if (!granted.contains(voterId)) {
            rejected.add(voterId);
        }
    }

    boolean won() {
        return granted.size() >= majority();
    }

    /** Enough voters said no that the rest cannot make a majority. */
    boolean lost() {
        return rejected.size() > voters.size() - majority();
    }

    private int majority() {
        return voters.size() / 2 + 1;
    }

    boolean hasAnswered(int voterId) {
        return granted.contains(voterId) || rejected.contains(voterId);
    }
}

package io.varve.raft.core;

import io.varve.raft.core.message.OffsetAndEpoch;

/**
 * Whether a voter may grant its (pre-)vote to a candidate, judged by the two logs' ends. The rule is
 * injected at construction only so that tests can plant a wrong one and show the simulation catches it;
 * production code uses {@link #RAFT}.
 */
@FunctionalInterface
public interface VoteRule {

    /** Raft's rule: the candidate's log is at least as up to date (last epoch, then end offset). */
    VoteRule RAFT = (candidateLogEnd, voterLogEnd) -> candidateLogEnd.compareTo(voterLogEnd) >= 0;

    boolean candidateIsUpToDate(OffsetAndEpoch candidateLogEnd, OffsetAndEpoch voterLogEnd);
}

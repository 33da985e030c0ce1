package io.varve.raft.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.raft.core.message.VoterSet;
import io.varve.raft.core.runtime.ElectionRecord;
import io.varve.raft.core.runtime.MemoryQuorumStateStore;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class QuorumStateTest {
    private static final Set<Integer> VOTERS = Set.of(1, 2, 3);
    private final MemoryQuorumStateStore store = new MemoryQuorumStateStore();

    private QuorumState quorum(int id) {
        return new QuorumState(
                RaftCoreConfig.defaults(id, "c", VOTERS),
                new VoterHistory(new VoterSet(VOTERS)),
                new CommitTracker(0, Optional.empty()),
                store,
                new Random(1),
                0,
                0);
    }

    @Test
    void aFreshVoterStartsUnattachedInEpochZero() {
        QuorumState quorum = quorum(1);
        assertThat(quorum.role()).isEqualTo(Role.UNATTACHED);
        assertThat(quorum.epoch()).isZero();
    }

    @Test
    void aCandidateBumpsTheEpochAndPersistsItsOwnVote() {
        QuorumState quorum = quorum(1);
        quorum.transitionToProspective(0);
        assertThat(store.writes()).as("a pre-vote changes nothing durable").isZero();
        ((ProspectiveState) quorum.state()).ballot.record(2, true);
        quorum.transitionToCandidate(0);
        assertThat(quorum.epoch()).isEqualTo(1);
        assertThat(store.read()).contains(new ElectionRecord(1, 1, -1));
    }

    @Test
    void aProspectiveThatHasNotWonCannotBecomeCandidate() {
        QuorumState quorum = quorum(1);
        quorum.transitionToProspective(0);
        assertThatThrownBy(() -> quorum.transitionToCandidate(0)).isInstanceOf(IllegalStateException.class);
        assertThat(quorum.epoch()).isZero();
    }

    @Test
    void onlyACandidateBecomesLeader() {
        QuorumState quorum = quorum(1);
        assertThatThrownBy(() -> quorum.transitionToLeader(0, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aSecondVoteInTheSameEpochIsRefused() {
        QuorumState quorum = quorum(1);
        quorum.transitionToUnattached(3, 2, 100, 0);
        assertThat(store.read()).contains(new ElectionRecord(3, 2, -1));
        assertThatThrownBy(() -> quorum.transitionToUnattached(3, 3, 100, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(quorum.votedId()).isEqualTo(2);
    }

    @Test
    void aLeaderCannotFollowAnotherLeaderInItsOwnEpoch() {
        QuorumState quorum = quorum(1);
        quorum.transitionToProspective(0);
        ((ProspectiveState) quorum.state()).ballot.record(2, true);
        quorum.transitionToCandidate(0);
        ((CandidateState) quorum.state()).ballot.record(2, true);
        quorum.transitionToLeader(0, 0);
        assertThatThrownBy(() -> quorum.transitionToFollower(1, 3, 0)).isInstanceOf(IllegalStateException.class);
        quorum.transitionToFollower(2, 3, 0);
        assertThat(quorum.role()).isEqualTo(Role.FOLLOWER);
    }

    @Test
    void epochsNeverGoBack() {
        QuorumState quorum = quorum(1);
        quorum.transitionToFollower(5, 2, 0);
        assertThatThrownBy(() -> quorum.transitionToFollower(4, 3, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> quorum.transitionToUnattached(4, -1, 0, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anObserverNeverRunsAnElection() {
        QuorumState observer = quorum(9);
        assertThatThrownBy(() -> observer.transitionToProspective(0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> observer.transitionToCandidate(0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aRestartedLeaderComesBackResignedAndAFollowerFollowingItsLeader() {
        store.write(new ElectionRecord(4, 1, 1));
        assertThat(quorum(1).role()).isEqualTo(Role.RESIGNED);
        store.write(new ElectionRecord(4, 2, 2));
        QuorumState follower = quorum(1);
        assertThat(follower.role()).isEqualTo(Role.FOLLOWER);
        assertThat(follower.state().leaderId()).isEqualTo(2);
        assertThat(follower.votedId()).isEqualTo(2);
    }

    @Test
    void onlyALeaderResigns() {
        QuorumState quorum = quorum(1);
        assertThatThrownBy(() -> quorum.transitionToResigned(List.of(), 0)).isInstanceOf(IllegalStateException.class);
    }
}

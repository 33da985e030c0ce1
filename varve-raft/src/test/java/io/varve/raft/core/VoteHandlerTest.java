package io.varve.raft.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.raft.core.message.BeginQuorumEpochRequest;
import io.varve.raft.core.message.FetchRequest;
import io.varve.raft.core.message.FetchResponse;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.VoteRequest;
import io.varve.raft.core.message.VoteResponse;
import io.varve.raft.core.runtime.ElectionRecord;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class VoteHandlerTest {
    private static final Set<Integer> VOTERS = Set.of(1, 2, 3);

    private static VoteRequest vote(int candidate, int epoch, int lastEpoch, long endOffset, boolean preVote) {
        return new VoteRequest(CoreFixture.CLUSTER, 1, epoch, candidate, lastEpoch, endOffset, preVote);
    }

    @Test
    void grantsAVoteToAnUpToDateCandidateAndPersistsItBeforeAnswering() {
        CoreFixture voter = CoreFixture.replica(1, VOTERS).withLog(1, 1).start();
        RaftOutput out = voter.deliver(2, 7, vote(2, 2, 1, 2, false));
        assertThat(((VoteResponse) out.messages().get(0).message()).voteGranted())
                .isTrue();
        assertThat(out.messages().get(0).correlationId()).isEqualTo(7);
        assertThat(voter.store.read()).contains(new ElectionRecord(2, 2, -1));
    }

    @Test
    void refusesACandidateWhoseLogIsBehind() {
        CoreFixture voter = CoreFixture.replica(1, VOTERS).withLog(1, 2).start();
        assertThat(grant(voter.deliver(2, 1, vote(2, 3, 1, 5, false))))
                .as("older last epoch")
                .isFalse();
        assertThat(grant(voter.deliver(3, 2, vote(3, 3, 2, 1, false))))
                .as("same epoch, shorter")
                .isFalse();
        assertThat(voter.core.epoch())
                .as("the epoch is adopted even when the vote is refused")
                .isEqualTo(3);
        assertThat(voter.core.votedId()).isEqualTo(-1);
    }

    @Test
    void votesOncePerEpoch() {
        CoreFixture voter = CoreFixture.replica(1, VOTERS).start();
        assertThat(grant(voter.deliver(2, 1, vote(2, 1, 0, 0, false)))).isTrue();
        assertThat(grant(voter.deliver(3, 2, vote(3, 1, 0, 0, false)))).isFalse();
        assertThat(grant(voter.deliver(2, 3, vote(2, 1, 0, 0, false))))
                .as("the same candidate again")
                .isTrue();
    }

    @Test
    void aPreVoteChangesNeitherTheEpochNorTheVote() {
        CoreFixture voter = CoreFixture.replica(1, VOTERS).start();
        assertThat(grant(voter.deliver(2, 1, vote(2, 5, 0, 0, true)))).isTrue();
        assertThat(voter.core.epoch()).isZero();
        assertThat(voter.core.votedId()).isEqualTo(-1);
        assertThat(voter.store.writes()).isZero();
    }

    @Test
    void aFollowerInContactWithItsLeaderRefusesPreVotes() {
        CoreFixture follower = CoreFixture.replica(1, VOTERS).start();
        follower.deliver(2, 1, new BeginQuorumEpochRequest(CoreFixture.CLUSTER, 1, 1, 2));
        assertThat(follower.core.role()).isEqualTo(Role.FOLLOWER);
        assertThat(grant(follower.deliver(3, 2, vote(3, 1, 0, 0, true)))).isFalse();
        follower.advance(2500); // no answer from the leader within the fetch timeout
        assertThat(follower.core.role()).isEqualTo(Role.PROSPECTIVE);
    }

    @Test
    void aGrantedPreVoteNamingTheLeaderThisReplicaGaveUpOnCountsAndDoesNotMakeItFollowThatLeaderAgain() {
        // Both followers of a dead leader: the one that only heard of the leader grants the pre-vote and names it.
        // Following it again on that answer let the two turn each other back into followers forever.
        CoreFixture voter = CoreFixture.replica(1, VOTERS).start();
        voter.deliver(2, 1, new BeginQuorumEpochRequest(CoreFixture.CLUSTER, 1, 1, 2));
        voter.advance(2500);
        assertThat(voter.core.role()).isEqualTo(Role.PROSPECTIVE);

        voter.answer(3, VoteRequest.class, new VoteResponse(RaftError.NONE, 2, 1, true));

        assertThat(voter.core.role()).isEqualTo(Role.CANDIDATE);
        assertThat(voter.core.epoch()).isEqualTo(2);
    }

    @Test
    void aRefusalNamingTheDoubtedLeaderMakesTheProspectiveAskAgainSoonAndFollowItOnlyAfterAnElectionTimeout() {
        CoreFixture voter = CoreFixture.replica(1, VOTERS).start();
        voter.deliver(2, 1, new BeginQuorumEpochRequest(CoreFixture.CLUSTER, 1, 1, 2));
        voter.advance(2500);
        assertThat(voter.core.role()).isEqualTo(Role.PROSPECTIVE);

        // Voter 3 still hears the leader: it refuses. Voter 1 keeps campaigning and asks again within a backoff.
        voter.answer(3, VoteRequest.class, new VoteResponse(RaftError.NONE, 2, 1, false));
        assertThat(voter.core.role()).isEqualTo(Role.PROSPECTIVE);
        int sentBefore = voter.sent.size();
        voter.advance(voter.config.electionBackoffMaxMs());
        assertThat(voter.sent.subList(sentBefore, voter.sent.size()))
                .as("a new round of pre-votes within the backoff")
                .anySatisfy(m -> assertThat(m.message()).isInstanceOf(VoteRequest.class));

        // Still refused after an election timeout of doubt: the leader is alive, follow it again.
        voter.advance(voter.config.electionTimeoutMs());
        voter.answer(3, VoteRequest.class, new VoteResponse(RaftError.NONE, 2, 1, false));
        assertThat(voter.core.role()).isEqualTo(Role.FOLLOWER);
        assertThat(voter.core.epoch()).isEqualTo(1);
    }

    @Test
    void aProspectiveThatCannotWinNeverBumpsTheEpoch() {
        CoreFixture voter = CoreFixture.replica(1, VOTERS).start();
        voter.advance(2000);
        assertThat(voter.core.role()).isEqualTo(Role.PROSPECTIVE);
        voter.answer(2, VoteRequest.class, new VoteResponse(RaftError.NONE, -1, 0, false));
        voter.answer(3, VoteRequest.class, new VoteResponse(RaftError.NONE, -1, 0, false));
        assertThat(voter.core.epoch()).isZero();
        assertThat(voter.store.writes()).isZero();
        assertThat(voter.lastMessage(VoteRequest.class, 2).preVote()).isTrue();
    }

    @Test
    void aRejectionNamingTheLeaderSendsAProspectiveBackToFollowing() {
        CoreFixture voter = CoreFixture.replica(1, VOTERS).start();
        voter.advance(2000);
        voter.answer(2, VoteRequest.class, new VoteResponse(RaftError.NONE, 3, 4, false));
        assertThat(voter.core.role()).isEqualTo(Role.FOLLOWER);
        assertThat(voter.core.leaderId()).isEqualTo(3);
        assertThat(voter.core.epoch()).isEqualTo(4);
    }

    @Test
    void aWonElectionAppendsALeaderChangeAndAnnouncesTheEpoch() {
        CoreFixture leader = CoreFixture.replica(1, VOTERS).start().electLeader(2);
        assertThat(leader.core.epoch()).isEqualTo(1);
        assertThat(leader.log.endOffset()).isEqualTo(1);
        assertThat(leader.lastMessage(BeginQuorumEpochRequest.class, 3).leaderEpoch())
                .isEqualTo(1);
        assertThat(leader.store.read()).contains(new ElectionRecord(1, 1, 1));
    }

    @Test
    void aSingleVoterElectsItselfAndCommitsItsOwnEntries() {
        CoreFixture alone = CoreFixture.replica(1, Set.of(1)).start();
        alone.advance(2000);
        assertThat(alone.core.role()).isEqualTo(Role.LEADER);
        Proposal proposal = alone.core.propose(List.of(CoreFixture.bytes("x")), alone.nowMs);
        assertThat(proposal.accepted()).isTrue();
        alone.advance(1);
        assertThat(alone.core.highWatermark()).isEqualTo(2);
        assertThat(alone.committed).hasSize(2);
    }

    @Test
    void answersAnotherClusterWithInconsistentClusterId() {
        CoreFixture voter = CoreFixture.replica(1, VOTERS).start();
        RaftOutput out = voter.deliver(2, 1, new VoteRequest("other", 1, 1, 2, 0, 0, false));
        assertThat(((VoteResponse) out.messages().get(0).message()).error())
                .isEqualTo(RaftError.INCONSISTENT_CLUSTER_ID);
        assertThat(voter.core.epoch()).isZero();
    }

    @Test
    void aRequestForAnotherVoterIsAnsweredWithInconsistentVoterSet() {
        CoreFixture voter = CoreFixture.replica(1, VOTERS).start();
        RaftOutput out = voter.deliver(2, 1, new VoteRequest(CoreFixture.CLUSTER, 3, 1, 2, 0, 0, false));
        assertThat(((VoteResponse) out.messages().get(0).message()).error())
                .isEqualTo(RaftError.INCONSISTENT_VOTER_SET);
    }

    @Test
    void aReplicaOutsideItsOwnVoterSetStillVotesBecauseItsSetMayBeStale() {
        CoreFixture outside = CoreFixture.replica(9, VOTERS).start();
        assertThat(grant(outside.deliver(2, 1, new VoteRequest(CoreFixture.CLUSTER, 9, 1, 2, 0, 0, false))))
                .isTrue();
        assertThat(outside.core.role()).as("it still never runs an election").isEqualTo(Role.UNATTACHED);
        outside.advance(10_000);
        assertThat(outside.core.role()).isEqualTo(Role.UNATTACHED);
    }

    @Test
    void aLateResponseFromAnEarlierRoleIsIgnored() {
        CoreFixture voter = CoreFixture.replica(1, VOTERS).start();
        voter.advance(2000);
        long staleCorrelation = voter.lastSent(VoteRequest.class, 2).correlationId();
        voter.deliver(
                2, 99, new FetchResponse(RaftError.NONE, 2, 0, 0, 0, Optional.empty(), Optional.empty(), List.of()));
        voter.advance(2000); // a second pre-vote round
        voter.deliver(2, staleCorrelation, new VoteResponse(RaftError.NONE, -1, 0, true));
        assertThat(voter.core.role()).isEqualTo(Role.PROSPECTIVE);
        assertThat(voter.hasSent(FetchRequest.class, 2)).isFalse();
    }

    private static boolean grant(RaftOutput out) {
        return ((VoteResponse) out.messages().get(0).message()).voteGranted();
    }
}

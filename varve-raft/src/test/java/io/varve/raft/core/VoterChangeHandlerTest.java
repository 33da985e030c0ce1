package io.varve.raft.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.raft.core.message.AddVoterRequest;
import io.varve.raft.core.message.AddVoterResponse;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.FetchRequest;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.RemoveVoterRequest;
import io.varve.raft.core.message.RemoveVoterResponse;
import io.varve.raft.core.message.VoterSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class VoterChangeHandlerTest {
    private static final int ADMIN = 100;

    private static FetchRequest fetch(int replica, long offset, int lastEpoch) {
        return new FetchRequest(CoreFixture.CLUSTER, replica, 1, offset, lastEpoch, 100, 0);
    }

    /** Leader 1 of {1, 2} in epoch 1 whose LeaderChange committed, with replica 3 caught up as an observer. */
    private static CoreFixture committedLeader() {
        CoreFixture leader = CoreFixture.replica(1, Set.of(1, 2)).start().electLeader(2);
        leader.advance(1);
        leader.deliver(2, 1, fetch(2, 1, 1));
        leader.deliver(3, 2, fetch(3, 1, 1));
        assertThat(leader.core.highWatermark()).isEqualTo(1);
        return leader;
    }

    private static RaftError lastAddAnswer(CoreFixture fixture) {
        return fixture.lastMessage(AddVoterResponse.class, ADMIN).error();
    }

    @Test
    void anAddedVoterCountsAtOnceAndTheAnswerWaitsForTheCommit() {
        CoreFixture leader = committedLeader();
        leader.deliver(ADMIN, 7, new AddVoterRequest(CoreFixture.CLUSTER, 3));
        assertThat(leader.core.voters()).isEqualTo(new VoterSet(Set.of(1, 2, 3)));
        assertThat(leader.hasSent(AddVoterResponse.class, ADMIN)).isFalse();
        leader.deliver(2, 3, fetch(2, 2, 1));
        assertThat(leader.core.highWatermark())
                .as("a majority of the new set: 1 and 2")
                .isEqualTo(2);
        assertThat(lastAddAnswer(leader)).isEqualTo(RaftError.NONE);
        assertThat(leader.lastSent(AddVoterResponse.class, ADMIN).correlationId())
                .isEqualTo(7);
    }

    @Test
    void oneChangeAtATime() {
        CoreFixture leader = committedLeader();
        leader.deliver(ADMIN, 1, new AddVoterRequest(CoreFixture.CLUSTER, 3));
        leader.deliver(ADMIN, 2, new RemoveVoterRequest(CoreFixture.CLUSTER, 2));
        assertThat(leader.lastMessage(RemoveVoterResponse.class, ADMIN).error()).isEqualTo(RaftError.REQUEST_TIMED_OUT);
    }

    @Test
    void refusesAReplicaThatHasNotCaughtUpADuplicateAndAnUnknownVoter() {
        CoreFixture leader = committedLeader();
        leader.deliver(ADMIN, 1, new AddVoterRequest(CoreFixture.CLUSTER, 4));
        assertThat(lastAddAnswer(leader)).isEqualTo(RaftError.REQUEST_TIMED_OUT);
        leader.deliver(ADMIN, 2, new AddVoterRequest(CoreFixture.CLUSTER, 2));
        assertThat(lastAddAnswer(leader)).isEqualTo(RaftError.DUPLICATE_VOTER);
        leader.deliver(ADMIN, 3, new RemoveVoterRequest(CoreFixture.CLUSTER, 5));
        assertThat(leader.lastMessage(RemoveVoterResponse.class, ADMIN).error()).isEqualTo(RaftError.VOTER_NOT_FOUND);
        leader.deliver(ADMIN, 4, new AddVoterRequest("other", 3));
        assertThat(lastAddAnswer(leader)).isEqualTo(RaftError.INCONSISTENT_CLUSTER_ID);
    }

    @Test
    void aReplicaThatDoesNotLeadRefusesChanges() {
        CoreFixture follower = CoreFixture.replica(2, Set.of(1, 2)).start();
        follower.deliver(ADMIN, 1, new AddVoterRequest(CoreFixture.CLUSTER, 3));
        assertThat(lastAddAnswer(follower)).isEqualTo(RaftError.NOT_LEADER_OR_FOLLOWER);
    }

    @Test
    void aLeaderThatRemovesItselfLeadsUntilTheRemovalCommitsThenResigns() {
        CoreFixture leader = committedLeader();
        leader.deliver(ADMIN, 1, new RemoveVoterRequest(CoreFixture.CLUSTER, 1));
        assertThat(leader.core.voters()).isEqualTo(new VoterSet(Set.of(2)));
        assertThat(leader.core.role()).isEqualTo(Role.LEADER);
        leader.deliver(2, 2, fetch(2, 2, 1));
        assertThat(leader.core.highWatermark()).isEqualTo(2);
        assertThat(leader.lastMessage(RemoveVoterResponse.class, ADMIN).error()).isEqualTo(RaftError.NONE);
        assertThat(leader.core.role()).isIn(Role.RESIGNED, Role.UNATTACHED);
    }

    @Test
    void truncatingAVoterChangeBringsBackTheEarlierSet() {
        VoterHistory history = new VoterHistory(new VoterSet(Set.of(1, 2, 3)));
        history.appended(List.of(
                new LogEntry(5, 1, EntryType.VOTERS, new VoterSet(Set.of(1, 2)).encode()),
                new LogEntry(9, 2, EntryType.VOTERS, new VoterSet(Set.of(1, 2, 4)).encode())));
        assertThat(history.current().ids()).containsExactly(1, 2, 4);
        assertThat(history.at(9).ids()).containsExactly(1, 2);
        history.truncatedTo(9);
        assertThat(history.current().ids()).containsExactly(1, 2);
        history.startAdvancedTo(6);
        history.truncatedTo(6);
        assertThat(history.current().ids())
                .as("folded into the base at the log start")
                .containsExactly(1, 2);
    }

    @Test
    void aSnapshotCarriesTheVoterSetInEffectAtItsEnd() {
        CoreFixture leader = committedLeader();
        leader.deliver(ADMIN, 1, new AddVoterRequest(CoreFixture.CLUSTER, 3));
        leader.deliver(2, 3, fetch(2, 2, 1));
        leader.core.snapshotTaken(2, new byte[] {42});
        CoreFixture restarted = CoreFixture.replica(1, Set.of(1, 2));
        restarted.snapshots.write(leader.snapshots.latest().orElseThrow(), leader.snapshots.data());
        restarted.log.resetTo(leader.snapshots.latest().orElseThrow());
        restarted.start();
        assertThat(restarted.core.voters()).isEqualTo(new VoterSet(Set.of(1, 2, 3)));
        assertThat(SnapshotFormat.stateMachineBytes(leader.snapshots.data())).containsExactly(42);
    }
}

package io.varve.raft.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.raft.core.message.BeginQuorumEpochRequest;
import io.varve.raft.core.message.DescribeQuorumRequest;
import io.varve.raft.core.message.DescribeQuorumResponse;
import io.varve.raft.core.message.EndQuorumEpochRequest;
import io.varve.raft.core.message.FetchRequest;
import io.varve.raft.core.message.FetchResponse;
import io.varve.raft.core.message.FetchSnapshotRequest;
import io.varve.raft.core.message.OffsetAndEpoch;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.SnapshotId;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FetchHandlersTest {
    private static final Set<Integer> VOTERS = Set.of(1, 2, 3);

    private static FetchRequest fetch(int replica, int epoch, long offset, int lastEpoch) {
        return new FetchRequest(CoreFixture.CLUSTER, replica, epoch, offset, lastEpoch, 100, 0);
    }

    private static FetchResponse answer(RaftOutput out) {
        return (FetchResponse) out.messages().get(0).message();
    }

    @Test
    void theHighWatermarkMovesWhenAMajorityHoldsAnEntryOfTheCurrentEpoch() {
        CoreFixture leader =
                CoreFixture.replica(1, VOTERS).withLog(0, 0).start().electLeader(2);
        leader.advance(1);
        assertThat(leader.core.highWatermark())
                .as("only the leader holds its LeaderChange")
                .isZero();
        leader.deliver(2, 1, fetch(2, 1, 2, 0));
        assertThat(leader.core.highWatermark())
                .as("older entries alone do not commit")
                .isZero();
        leader.deliver(2, 2, fetch(2, 1, 3, 1));
        assertThat(leader.core.highWatermark()).isEqualTo(3);
        assertThat(leader.committed).hasSize(3);
    }

    @Test
    void observerFetchesNeverCountForTheHighWatermark() {
        CoreFixture leader = CoreFixture.replica(1, VOTERS).start().electLeader(2);
        leader.advance(1);
        leader.deliver(8, 1, fetch(8, 1, 1, 1));
        leader.deliver(9, 2, fetch(9, 1, 1, 1));
        assertThat(leader.core.highWatermark()).isZero();
        DescribeQuorumResponse describe = (DescribeQuorumResponse) leader.deliver(7, 3, new DescribeQuorumRequest())
                .messages()
                .get(0)
                .message();
        assertThat(describe.observers()).extracting(r -> r.replicaId()).containsExactly(8, 9);
        assertThat(describe.currentVoters()).hasSize(3);
    }

    @Test
    void aFetchWhoseLastEpochDisagreesIsToldWhereThatEpochEnds() {
        // The leader of epoch 4 holds [1, 1, 3, 4]; a fetcher at offset 3 with last epoch 2 diverges where epoch 1
        // ends.
        CoreFixture leader =
                CoreFixture.replica(1, VOTERS).withLog(1, 1, 3).start().electLeader(2);
        FetchResponse response = answer(leader.deliver(2, 1, fetch(2, leader.core.epoch(), 3, 2)));
        assertThat(response.divergingEpoch()).contains(new OffsetAndEpoch(2, 1));
        assertThat(response.records()).isEmpty();
    }

    @Test
    void aFollowerTruncatesToTheDivergenceAndFetchesAgain() {
        CoreFixture leader =
                CoreFixture.replica(1, VOTERS).withLog(1, 1, 3).start().electLeader(2);
        CoreFixture follower =
                CoreFixture.replica(2, VOTERS).withLog(1, 1, 2, 2).start();
        Wire wire = new Wire(List.of(leader, follower));
        follower.deliver(1, 1, new BeginQuorumEpochRequest(CoreFixture.CLUSTER, 2, leader.core.epoch(), 1));
        wire.tick(1);
        wire.tick(1);
        assertThat(follower.log.read(0, 10, 10)).isEqualTo(leader.log.read(0, 10, 10));
        assertThat(follower.log.truncations()).isEqualTo(1);
    }

    @Test
    void aFetchWithAnOldEpochIsFencedAndOneWithAFutureEpochIsUnknown() {
        CoreFixture leader = CoreFixture.replica(1, VOTERS).start().electLeader(2);
        FetchResponse fenced = answer(leader.deliver(2, 1, fetch(2, 0, 0, 0)));
        assertThat(fenced.error()).isEqualTo(RaftError.FENCED_LEADER_EPOCH);
        assertThat(fenced.leaderId()).isEqualTo(1);
        assertThat(answer(leader.deliver(2, 2, fetch(2, 2, 0, 0))).error()).isEqualTo(RaftError.UNKNOWN_LEADER_EPOCH);
        assertThat(answer(leader.deliver(2, 3, new FetchRequest("x", 2, 1, 0, 0, 1, 0)))
                        .error())
                .isEqualTo(RaftError.INCONSISTENT_CLUSTER_ID);
    }

    @Test
    void aReplicaThatDoesNotLeadAnswersNotLeaderWithTheLeaderItKnows() {
        CoreFixture follower = CoreFixture.replica(2, VOTERS).start();
        follower.deliver(1, 1, new BeginQuorumEpochRequest(CoreFixture.CLUSTER, 2, 3, 1));
        FetchResponse response = answer(follower.deliver(9, 2, fetch(9, 3, 0, 0)));
        assertThat(response.error()).isEqualTo(RaftError.NOT_LEADER_OR_FOLLOWER);
        assertThat(response.leaderId()).isEqualTo(1);
        assertThat(response.leaderEpoch()).isEqualTo(3);
    }

    @Test
    void aCaughtUpFetchIsParkedUntilNewEntriesArrive() {
        CoreFixture leader = CoreFixture.replica(1, VOTERS).start().electLeader(2);
        leader.advance(1);
        FetchRequest caughtUp = new FetchRequest(CoreFixture.CLUSTER, 2, 1, 1, 1, 100, 500);
        answer(leader.deliver(2, 1, caughtUp)); // first answer carries the high watermark
        assertThat(leader.deliver(2, 2, caughtUp).messages())
                .as("nothing new: parked")
                .isEmpty();
        leader.core.propose(List.of(CoreFixture.bytes("a")), leader.nowMs);
        FetchResponse woken = (FetchResponse) leader.advance(1).messages().stream()
                .filter(m -> m.message() instanceof FetchResponse)
                .findFirst()
                .orElseThrow()
                .message();
        assertThat(woken.records()).hasSize(1);
    }

    @Test
    void aResigningLeaderAnswersItsParkedFetchesAtOnce() {
        CoreFixture leader = CoreFixture.replica(1, VOTERS).start().electLeader(2);
        leader.advance(1);
        FetchRequest caughtUp = new FetchRequest(CoreFixture.CLUSTER, 2, 1, 1, 1, 100, 500);
        answer(leader.deliver(2, 1, caughtUp));
        assertThat(leader.deliver(2, 2, caughtUp).messages()).as("parked").isEmpty();
        FetchResponse released = (FetchResponse) leader.resign().messages().stream()
                .filter(m -> m.message() instanceof FetchResponse && m.correlationId() == 2)
                .findFirst()
                .orElseThrow()
                .message();
        assertThat(released.error()).isEqualTo(RaftError.NOT_LEADER_OR_FOLLOWER);
        assertThat(released.leaderId()).isEqualTo(-1);
    }

    @Test
    void aLeaderWithoutFetchesFromAMajorityResigns() {
        CoreFixture leader = CoreFixture.replica(1, VOTERS).start().electLeader(2);
        leader.advance(1000);
        leader.deliver(2, 1, fetch(2, 1, 1, 1));
        leader.advance(1500);
        assertThat(leader.core.role()).isEqualTo(Role.LEADER);
        leader.advance(1000);
        assertThat(leader.core.role()).isEqualTo(Role.RESIGNED);
        assertThat(leader.lastMessage(EndQuorumEpochRequest.class, 2).preferredSuccessors())
                .containsExactly(2, 3);
    }

    @Test
    void aGracefulResignationLetsTheFirstSuccessorStartAtOnce() {
        CoreFixture leader = CoreFixture.replica(1, VOTERS).start().electLeader(2);
        CoreFixture successor = CoreFixture.replica(2, VOTERS).start();
        successor.deliver(1, 1, new BeginQuorumEpochRequest(CoreFixture.CLUSTER, 2, 1, 1));
        leader.deliver(2, 2, fetch(2, 1, 1, 1));
        leader.resign();
        assertThat(leader.core.role()).isEqualTo(Role.RESIGNED);
        EndQuorumEpochRequest end = leader.lastMessage(EndQuorumEpochRequest.class, 2);
        assertThat(end.preferredSuccessors()).containsExactly(2, 3);
        successor.deliver(1, 3, end);
        assertThat(successor.core.role()).isEqualTo(Role.PROSPECTIVE);
        assertThat(successor.core.epoch())
                .as("a pre-vote first, in the old epoch")
                .isEqualTo(1);
    }

    @Test
    void aFetchBelowTheLogStartIsToldTheSnapshotAndTheFetcherPullsItInChunks() {
        CoreFixture leader = CoreFixture.replica(1, Set.of(1, 2)).start();
        CoreFixture follower = CoreFixture.replica(2, Set.of(1, 2)).start();
        Wire wire = new Wire(List.of(leader, follower));
        leader.advance(2000);
        wire.pump();
        assertThat(leader.core.role()).isEqualTo(Role.LEADER);
        for (int i = 0; i < 20; i++) {
            leader.core.propose(List.of(new byte[100]), leader.nowMs);
        }
        wire.tick(1);
        wire.tick(1);
        assertThat(leader.core.highWatermark()).isEqualTo(21);
        SnapshotId id = leader.core.snapshotTaken(21, new byte[200_000]);
        assertThat(leader.log.startOffset()).isEqualTo(21);

        CoreFixture observer = CoreFixture.replica(9, Set.of(1, 2));
        observer.nowMs = leader.nowMs;
        observer.start();
        Wire withObserver = new Wire(List.of(leader, follower, observer));
        for (int i = 0; i < 10; i++) {
            withObserver.tick(1);
        }
        assertThat(observer.snapshots.latest()).contains(id);
        assertThat(SnapshotFormat.stateMachineBytes(observer.snapshots.data())).hasSize(200_000);
        assertThat(observer.log.startOffset()).isEqualTo(21);
        assertThat(observer.core.highWatermark()).isEqualTo(21);
        assertThat(observer.sent.stream().filter(m -> m.message() instanceof FetchSnapshotRequest))
                .hasSize(4);

        leader.core.propose(List.of(new byte[1]), leader.nowMs);
        withObserver.tick(1);
        withObserver.tick(1);
        assertThat(observer.log.endOffset())
                .as("fetching resumes after the snapshot")
                .isEqualTo(22);
    }
}

package io.varve.raft.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.raft.core.message.AddVoterRequest;
import io.varve.raft.core.message.AddVoterResponse;
import io.varve.raft.core.message.DescribeQuorumRequest;
import io.varve.raft.core.message.DescribeQuorumResponse;
import io.varve.raft.core.message.DescribeQuorumResponse.ReplicaProgress;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.FetchRequest;
import io.varve.raft.core.message.FetchResponse;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OutboundMessage;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.RaftMessage;
import io.varve.raft.core.message.RemoveVoterRequest;
import io.varve.raft.core.message.RemoveVoterResponse;
import io.varve.raft.core.message.UpdateVoterRequest;
import io.varve.raft.core.message.UpdateVoterResponse;
import io.varve.raft.core.message.VoterSet;
import io.varve.raft.core.message.VoterSet.Endpoint;
import io.varve.raft.core.message.VoterSet.Voter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** KIP-853 with directory ids and endpoints: kraft.version, UpdateVoter, DescribeQuorum, bootstrap servers. */
class DynamicQuorumTest {
    private static final int ADMIN = 100;
    private static final UUID DIR_1 = new UUID(1, 1);
    private static final UUID DIR_2 = new UUID(2, 2);
    private static final UUID DIR_3 = new UUID(3, 3);

    private static Voter voter(int id, UUID dir, int port) {
        return new Voter(id, dir, Map.of("CONTROLLER", new Endpoint("127.0.0.1", port)));
    }

    private static FetchRequest fetch(int replica, long offset, int lastEpoch) {
        return new FetchRequest(CoreFixture.CLUSTER, replica, 1, offset, lastEpoch, 100, 0);
    }

    /** Leader 1 of {1, 2} in epoch 1, LeaderChange committed, replica 3 caught up as an observer; kraft.version given. */
    private static CoreFixture leader(int kraftVersion) {
        RaftCoreConfig config = RaftCoreConfig.defaults(1, CoreFixture.CLUSTER, Set.of(1, 2))
                .withQuorum(kraftVersion, 0, voter(1, DIR_1, 9001));
        CoreFixture leader = CoreFixture.replica(config).start().electLeader(2);
        leader.advance(1);
        leader.deliver(2, 1, fetch(2, 1, 1));
        leader.deliver(3, 2, fetch(3, 1, 1));
        assertThat(leader.core.highWatermark()).isEqualTo(1);
        return leader;
    }

    @Test
    void aStaticQuorumRefusesEveryVoterChangeWithUnsupportedVersion() {
        CoreFixture leader = leader(0);
        leader.deliver(ADMIN, 1, new AddVoterRequest(CoreFixture.CLUSTER, voter(3, DIR_3, 9003)));
        assertThat(leader.lastMessage(AddVoterResponse.class, ADMIN).error()).isEqualTo(RaftError.UNSUPPORTED_VERSION);
        leader.deliver(ADMIN, 2, new RemoveVoterRequest(CoreFixture.CLUSTER, 2));
        assertThat(leader.lastMessage(RemoveVoterResponse.class, ADMIN).error())
                .isEqualTo(RaftError.UNSUPPORTED_VERSION);
        leader.deliver(2, 3, new UpdateVoterRequest(CoreFixture.CLUSTER, 1, voter(2, DIR_2, 9002)));
        assertThat(leader.lastMessage(UpdateVoterResponse.class, 2).error()).isEqualTo(RaftError.UNSUPPORTED_VERSION);
        assertThat(leader.core.voters()).isEqualTo(new VoterSet(Set.of(1, 2)));
        assertThat(leader.core.kraftVersion()).isZero();
    }

    @Test
    void anAddedVoterKeepsItsDirectoryIdAndEndpointsAndDescribeQuorumShowsThem() {
        CoreFixture leader = leader(1);
        leader.deliver(ADMIN, 7, new AddVoterRequest(CoreFixture.CLUSTER, voter(3, DIR_3, 9003)));
        leader.deliver(2, 3, fetch(2, 2, 1));
        assertThat(leader.lastMessage(AddVoterResponse.class, ADMIN).error()).isEqualTo(RaftError.NONE);
        assertThat(leader.core.voters().voter(3)).contains(voter(3, DIR_3, 9003));

        leader.deliver(ADMIN, 8, new DescribeQuorumRequest());
        DescribeQuorumResponse described = leader.lastMessage(DescribeQuorumResponse.class, ADMIN);
        assertThat(described.currentVoters())
                .extracting(ReplicaProgress::replicaId)
                .containsExactly(1, 2, 3);
        assertThat(described.currentVoters().get(2).directoryId()).isEqualTo(DIR_3);
        assertThat(described.currentVoters().get(1).directoryId())
                .as("voter 2 came from the static set: no directory id")
                .isEqualTo(Voter.NO_DIRECTORY_ID);
        assertThat(described.nodes()).containsExactly(voter(3, DIR_3, 9003));
    }

    @Test
    void anAdminRequestWithoutAClusterIdIsNotCheckedButAnotherClustersIsRefused() {
        CoreFixture leader = leader(1);
        leader.deliver(ADMIN, 1, new AddVoterRequest("other-cluster", voter(3, DIR_3, 9003)));
        assertThat(leader.lastMessage(AddVoterResponse.class, ADMIN).error())
                .isEqualTo(RaftError.INCONSISTENT_CLUSTER_ID);
        leader.deliver(ADMIN, 2, new AddVoterRequest(null, voter(3, DIR_3, 9003)));
        assertThat(leader.core.voters().contains(3))
                .as("Kafka's admin client sends no cluster id")
                .isTrue();
    }

    @Test
    void theLeaderKnowsAnObserverByTheDirectoryIdItFetchesWithAndAddsOnlyThatOne() {
        CoreFixture leader = leader(1);
        leader.deliver(3, 3, new FetchRequest(CoreFixture.CLUSTER, 3, 1, 1, 1, 100, 0, DIR_3));
        leader.deliver(ADMIN, 4, new DescribeQuorumRequest());
        assertThat(leader.lastMessage(DescribeQuorumResponse.class, ADMIN).observers())
                .extracting(ReplicaProgress::directoryId)
                .containsExactly(DIR_3);
        leader.deliver(ADMIN, 5, new AddVoterRequest(CoreFixture.CLUSTER, voter(3, DIR_2, 9003)));
        assertThat(leader.lastMessage(AddVoterResponse.class, ADMIN).error()).isEqualTo(RaftError.REQUEST_TIMED_OUT);
        assertThat(leader.core.voters().contains(3)).isFalse();
        leader.deliver(ADMIN, 6, new AddVoterRequest(CoreFixture.CLUSTER, voter(3, DIR_3, 9003)));
        assertThat(leader.core.voters().contains(3)).isTrue();
    }

    @Test
    void aRemovalNamingAnotherDirectoryIdFindsNoVoter() {
        CoreFixture leader = leader(1);
        leader.deliver(ADMIN, 1, new AddVoterRequest(CoreFixture.CLUSTER, voter(3, DIR_3, 9003)));
        leader.deliver(2, 3, fetch(2, 2, 1));
        leader.deliver(ADMIN, 2, new RemoveVoterRequest(CoreFixture.CLUSTER, 3, DIR_2));
        assertThat(leader.lastMessage(RemoveVoterResponse.class, ADMIN).error()).isEqualTo(RaftError.VOTER_NOT_FOUND);
        leader.deliver(ADMIN, 3, new RemoveVoterRequest(CoreFixture.CLUSTER, 3, DIR_3));
        assertThat(leader.core.voters().contains(3)).isFalse();
    }

    @Test
    void updateVoterReplacesTheEndpointsOnceAndAStaleEpochIsFenced() {
        CoreFixture leader = leader(1);
        leader.deliver(2, 4, new UpdateVoterRequest(CoreFixture.CLUSTER, 0, voter(2, DIR_2, 9002)));
        assertThat(leader.lastMessage(UpdateVoterResponse.class, 2).error()).isEqualTo(RaftError.FENCED_LEADER_EPOCH);
        leader.deliver(2, 5, new UpdateVoterRequest(CoreFixture.CLUSTER, 1, voter(2, DIR_2, 9002)));
        assertThat(leader.core.voters().voter(2)).contains(voter(2, DIR_2, 9002));
        leader.deliver(2, 6, fetch(2, 2, 1));
        assertThat(leader.lastSent(UpdateVoterResponse.class, 2).correlationId())
                .isEqualTo(5);
        assertThat(leader.lastMessage(UpdateVoterResponse.class, 2).error()).isEqualTo(RaftError.NONE);
    }

    @Test
    void aFollowerWhoseVoterEntryLacksItsEndpointsTellsTheLeader() {
        RaftCoreConfig config =
                RaftCoreConfig.defaults(2, CoreFixture.CLUSTER, Set.of(1, 2)).withQuorum(1, 0, voter(2, DIR_2, 9002));
        CoreFixture follower = CoreFixture.replica(config).start();
        follower.deliver(1, 1, new io.varve.raft.core.message.BeginQuorumEpochRequest(CoreFixture.CLUSTER, 2, 1, 1));
        follower.advance(1);
        UpdateVoterRequest update = follower.lastMessage(UpdateVoterRequest.class, 1);
        assertThat(update.voter()).isEqualTo(voter(2, DIR_2, 9002));
        assertThat(update.currentLeaderEpoch()).isEqualTo(1);
    }

    @Test
    void anObserverThatKnowsNoVoterFindsTheLeaderThroughABootstrapServerAndFollowsIt() {
        RaftCoreConfig config =
                RaftCoreConfig.defaults(3, CoreFixture.CLUSTER, Set.of()).withQuorum(1, 1, voter(3, DIR_3, 9003));
        CoreFixture observer = CoreFixture.replica(config).start();
        assertThat(observer.core.voters().isEmpty()).isTrue();
        observer.advance(3000);
        int bootstrap = RaftMessage.bootstrapServerId(0);
        OutboundMessage asked = observer.lastSent(FetchRequest.class, bootstrap);
        observer.deliver(bootstrap, asked.correlationId(), FetchResponse.error(RaftError.FENCED_LEADER_EPOCH, 1, 4));
        assertThat(observer.core.leaderId()).isEqualTo(1);
        assertThat(observer.core.role()).isEqualTo(Role.FOLLOWER);
        observer.advance(1);
        FetchRequest fromLeader = observer.lastMessage(FetchRequest.class, 1);
        assertThat(fromLeader.fetchOffset()).isZero();

        // The leader's log starts with the bootstrap voter set; once appended it is the observer's too.
        VoterSet bootstrapVoters = new VoterSet(new java.util.TreeMap<>()).with(voter(1, DIR_1, 9001));
        observer.answer(
                1,
                FetchRequest.class,
                new FetchResponse(
                        RaftError.NONE,
                        1,
                        4,
                        1,
                        0,
                        Optional.empty(),
                        Optional.empty(),
                        List.of(new LogEntry(0, 0, EntryType.VOTERS, bootstrapVoters.encode()))));
        assertThat(observer.core.voters()).isEqualTo(bootstrapVoters);
        assertThat(observer.core.role()).isEqualTo(Role.FOLLOWER);
    }
}

package io.varve.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.raft.core.message.DescribeQuorumResponse;
import io.varve.raft.core.message.DescribeQuorumResponse.ReplicaProgress;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.RaftMessage;
import io.varve.raft.core.message.VoterSet;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DescribeQuorumAnswersTest {
    private static final UUID DIR = new UUID(5, 6);

    private static ControllerQuorumInfo info(VoterSet voters, int leaderId) {
        RaftAddressBook book = new RaftAddressBook(
                "CONTROLLER",
                Map.of(9, InetSocketAddress.createUnresolved("static-host", 9009)),
                List.of(InetSocketAddress.createUnresolved("boot", 9000)));
        book.watchVoters(() -> voters);
        return new ControllerQuorumInfo(book, 1_000_000);
    }

    private static VoterSet dynamicVoters() {
        return new VoterSet(new TreeMap<>())
                .with(new VoterSet.Voter(1, DIR, Map.of("CONTROLLER", new VoterSet.Endpoint("h1", 9001))))
                .with(new VoterSet.Voter(2, DIR, Map.of("CONTROLLER", new VoterSet.Endpoint("h2", 9002))));
    }

    @Test
    void describeQuorumLeavesWithWallClockTimesAndStaticVotersGetTheirConfiguredEndpoints() {
        DescribeQuorumResponse core = new DescribeQuorumResponse(
                RaftError.NONE,
                9,
                3,
                10,
                List.of(new ReplicaProgress(9, 10, 500, 500), new ReplicaProgress(4, -1, -1, -1)),
                List.of());
        DescribeQuorumResponse out = DescribeQuorumAnswers.withWallClock(core, info(new VoterSet(Set.of(4, 9)), 9));
        assertThat(out.currentVoters().get(0).lastFetchTimestampMs()).isEqualTo(1_000_500);
        assertThat(out.currentVoters().get(1).lastFetchTimestampMs()).isEqualTo(-1);
        assertThat(out.nodes())
                .containsExactly(new VoterSet.Voter(
                        9,
                        VoterSet.Voter.NO_DIRECTORY_ID,
                        Map.of("CONTROLLER", new VoterSet.Endpoint("static-host", 9009))));
    }

    @Test
    void theAddressBookResolvesBootstrapServersVotersAndLearnedLeaders() {
        ControllerQuorumInfo info = info(dynamicVoters(), 1);
        RaftAddressBook book = info.addresses();
        assertThat(book.apply(RaftMessage.bootstrapServerId(0)).getHostString()).isEqualTo("boot");
        assertThat(book.apply(RaftMessage.bootstrapServerId(1))).isNull();
        assertThat(book.apply(2).getHostString()).isEqualTo("h2");
        assertThat(book.apply(9).getHostString()).isEqualTo("static-host");
        assertThat(book.apply(5)).isNull();
        book.learn(5, "learned", 9005);
        assertThat(book.apply(5).getPort()).isEqualTo(9005);
    }
}

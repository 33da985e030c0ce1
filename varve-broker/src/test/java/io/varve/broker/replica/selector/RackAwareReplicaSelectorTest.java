package io.varve.broker.replica.selector;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.replica.selector.ReplicaSelector.Candidate;
import java.util.List;
import org.junit.jupiter.api.Test;

class RackAwareReplicaSelectorTest {
    private final RackAwareReplicaSelector selector = new RackAwareReplicaSelector();
    private final Candidate leaderInA = new Candidate(1, "a", 100);

    @Test
    void aConsumerInAFollowersRackIsSentToThatFollower() {
        int chosen = selector.select("b", leaderInA, List.of(new Candidate(2, "b", 100), new Candidate(3, "c", 100)));

        assertThat(chosen).isEqualTo(2);
    }

    @Test
    void aConsumerInTheLeadersRackStaysOnTheLeader() {
        int chosen = selector.select("a", leaderInA, List.of(new Candidate(2, "a", 100)));

        assertThat(chosen).isEqualTo(1);
    }

    @Test
    void aConsumerInARackWithoutAnyReplicaStaysOnTheLeader() {
        int chosen = selector.select("z", leaderInA, List.of(new Candidate(2, "b", 100)));

        assertThat(chosen).isEqualTo(1);
    }

    @Test
    void amongFollowersOfTheClientsRackTheOneWithTheLongestLogWinsThenTheLowestId() {
        assertThat(selector.select(
                        "b",
                        leaderInA,
                        List.of(new Candidate(4, "b", 90), new Candidate(3, "b", 100), new Candidate(2, "b", 95))))
                .isEqualTo(3);
        assertThat(selector.select("b", leaderInA, List.of(new Candidate(4, "b", 100), new Candidate(3, "b", 100))))
                .isEqualTo(3);
    }

    @Test
    void brokersWithoutARackNeverMatch() {
        Candidate leaderWithoutRack = new Candidate(1, null, 100);

        assertThat(selector.select("b", leaderWithoutRack, List.of(new Candidate(2, null, 100))))
                .isEqualTo(1);
    }
}

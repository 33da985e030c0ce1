package io.varve.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class LeadershipAnnouncerTest {
    private static final TopicPartition A = new TopicPartition("a", 0);
    private static final TopicPartition B = new TopicPartition("b", 0);

    private final List<String> told = new ArrayList<>();
    private final LeadershipListener recorder = new LeadershipListener() {
        @Override
        public void onBecomingLeader(TopicPartition tp, int leaderEpoch) {
            told.add("lead " + tp + " " + leaderEpoch);
        }

        @Override
        public void onResigning(TopicPartition tp, int leaderEpoch) {
            told.add("resign " + tp + " " + leaderEpoch);
        }
    };

    @Test
    void tellsEachNewLeadershipOnceAndEachLossOnce() {
        LeadershipAnnouncer announcer = new LeadershipAnnouncer();
        announcer.add(recorder);
        announcer.announce(Map.of(A, 1));
        announcer.announce(Map.of(A, 1));
        announcer.resignAllBut(Map.of(A, 1));
        announcer.resignAllBut(Map.of());
        announcer.resignAllBut(Map.of());
        assertThat(told).containsExactly("lead a-0 1", "resign a-0 1");
    }

    @Test
    void aNewEpochOfAPartitionStillLedIsANewElectionWithoutResignation() {
        LeadershipAnnouncer announcer = new LeadershipAnnouncer();
        announcer.add(recorder);
        announcer.announce(Map.of(A, 1));
        announcer.resignAllBut(Map.of(A, 2));
        announcer.announce(Map.of(A, 2));
        assertThat(told).containsExactly("lead a-0 1", "lead a-0 2");
    }

    @Test
    void aListenerAddedLateHearsOfThePartitionsLedAlready() {
        LeadershipAnnouncer announcer = new LeadershipAnnouncer();
        announcer.announce(Map.of(B, 3));
        announcer.add(recorder);
        assertThat(told).containsExactly("lead b-0 3");
    }

    @Test
    void aFailingListenerDoesNotStopTheOthers() {
        LeadershipAnnouncer announcer = new LeadershipAnnouncer();
        announcer.add(new LeadershipListener() {
            @Override
            public void onBecomingLeader(TopicPartition tp, int leaderEpoch) {
                throw new IllegalStateException("boom");
            }

            @Override
            public void onResigning(TopicPartition tp, int leaderEpoch) {
                throw new IllegalStateException("boom");
            }
        });
        announcer.add(recorder);
        announcer.announce(Map.of(A, 1));
        assertThat(told).containsExactly("lead a-0 1");
    }
}

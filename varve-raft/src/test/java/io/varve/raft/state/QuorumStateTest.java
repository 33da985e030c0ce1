package io.varve.raft.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuorumStateTest {

    @TempDir
    Path dir;

    @Test
    void singleVoterBecomesLeaderOfTheNextEpochAndPersistsEachStep() throws IOException {
        FileQuorumStateStore store = new FileQuorumStateStore(dir);
        store.write(new ElectionState(4, 1, 1));
        QuorumState quorum = new QuorumState(1, Set.of(1), store);
        quorum.initialize(3);

        assertThat(quorum.current()).isInstanceOf(UnattachedState.class);
        assertThat(quorum.epoch()).isEqualTo(4);
        assertThat(quorum.leaderId()).isEqualTo(-1);

        CandidateState candidate = quorum.transitionToCandidate();
        assertThat(candidate.hasMajority()).isTrue();
        assertThat(store.read()).contains(new ElectionState(5, 1, -1));

        LeaderState leader = quorum.transitionToLeader(10, 10);
        assertThat(leader.epoch()).isEqualTo(5);
        assertThat(quorum.isLeader()).isTrue();
        assertThat(store.read()).contains(new ElectionState(5, 1, 1));
    }

    @Test
    void candidateWithoutMajorityCannotLead() throws IOException {
        QuorumState quorum = new QuorumState(1, Set.of(1, 2, 3), new FileQuorumStateStore(dir));
        quorum.initialize(0);
        CandidateState candidate = quorum.transitionToCandidate();

        assertThatThrownBy(() -> quorum.transitionToLeader(0, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(candidate.recordGrantedVote(3)).isTrue();
        assertThat(quorum.transitionToLeader(0, 0).epoch()).isEqualTo(1);
    }

    @Test
    void stateBehindTheLogContinuesFromTheLogsEpoch() throws IOException {
        QuorumState quorum = new QuorumState(1, Set.of(1), new FileQuorumStateStore(dir));
        quorum.initialize(9);

        assertThat(quorum.transitionToCandidate().epoch()).isEqualTo(10);
    }

    @Test
    void storeIgnoresALeftoverTemporaryFileFromAnInterruptedWrite() throws IOException {
        FileQuorumStateStore store = new FileQuorumStateStore(dir);
        store.write(new ElectionState(2, 1, 1));
        Files.writeString(dir.resolve(FileQuorumStateStore.FILE_NAME + ".tmp"), "garb");

        assertThat(store.read()).contains(new ElectionState(2, 1, 1));
        assertThat(dir.resolve(FileQuorumStateStore.FILE_NAME + ".tmp")).doesNotExist();
    }

    @Test
    void storeRejectsAMalformedFileInsteadOfGuessing() throws IOException {
        Files.writeString(dir.resolve(FileQuorumStateStore.FILE_NAME), "version=1\nepoch=x\n");

        assertThatThrownBy(() -> new FileQuorumStateStore(dir).read()).isInstanceOf(IOException.class);
    }
}

package io.varve.raft.core.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.raft.core.message.VoterSet.Endpoint;
import io.varve.raft.core.message.VoterSet.Voter;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class VoterSetTest {

    @Test
    void directoryIdsAndEndpointsSurviveEncoding() {
        VoterSet voters = new VoterSet(new TreeMap<>())
                .with(new Voter(
                        1,
                        UUID.randomUUID(),
                        Map.of("CONTROLLER", new Endpoint("127.0.0.1", 9093), "REPLICATION", new Endpoint("h", 1))))
                .with(Voter.of(7));
        assertThat(VoterSet.decode(voters.encode())).isEqualTo(voters);
    }

    @Test
    void entriesOfTheFirstIdsOnlyFormatStillDecode() {
        ByteBuffer legacy = ByteBuffer.allocate(12).putInt(2).putInt(3).putInt(1);
        assertThat(VoterSet.decode(legacy.array())).isEqualTo(new VoterSet(Set.of(1, 3)));
    }

    @Test
    void aZeroDirectoryIdOnEitherSideMatchesAnyOther() {
        UUID dir = UUID.randomUUID();
        Voter known = new Voter(1, dir, Map.of());
        assertThat(known.matchesDirectory(Voter.NO_DIRECTORY_ID)).isTrue();
        assertThat(known.matchesDirectory(dir)).isTrue();
        assertThat(known.matchesDirectory(UUID.randomUUID())).isFalse();
        assertThat(Voter.of(1).matchesDirectory(UUID.randomUUID())).isTrue();
    }

    @Test
    void anEncodedSetNeverReadsBackEmptyNorCorrupt() {
        assertThatThrownBy(() -> VoterSet.decode(VoterSet.EMPTY.encode())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(
                        () -> VoterSet.decode(ByteBuffer.allocate(4).putInt(-9).array()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

package io.varve.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.broker.StorageFormatter.InitialVoters;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.VoterSet;
import io.varve.raft.core.store.FileRaftLog;
import io.varve.raft.node.MetadataRaftRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StorageFormatterTest {
    @TempDir
    Path dir;

    private BrokerConfig config(int nodeId, boolean dynamic) {
        Map<String, String> props = new HashMap<>(Map.of(
                "node.id",
                Integer.toString(nodeId),
                "varve.metadata.raft.core.enable",
                "true",
                "listeners",
                "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093",
                "log.dirs",
                dir.resolve("data").toString()));
        if (dynamic) {
            props.put("controller.quorum.bootstrap.servers", "127.0.0.1:9093");
        }
        return BrokerConfig.fromMap(props);
    }

    private static VoterSet bootstrapVoters(Path metadataDir) {
        try (FileRaftLog log =
                FileRaftLog.open(MetadataRaftRuntime.storeDir(metadataDir), FileRaftLog.DEFAULT_SEGMENT_BYTES)) {
            assertThat(log.endOffset()).isEqualTo(1);
            LogEntry first = log.read(0, 1, 1).get(0);
            assertThat(first.type()).isEqualTo(EntryType.VOTERS);
            assertThat(first.epoch()).isZero();
            return VoterSet.decode(first.payload());
        }
    }

    @Test
    void standaloneMakesThisNodeTheOnlyVoterWithItsDirectoryIdAndControllerListener() throws Exception {
        BrokerConfig config = config(1, true);
        Uuid directoryId = StorageFormatter.format(config, "cluster-a", InitialVoters.standalone());
        assertThat(MetaProperties.directoryId(config.metadataLogDir())).isEqualTo(directoryId);
        VoterSet voters = bootstrapVoters(config.metadataLogDir());
        assertThat(voters.ids()).containsExactly(1);
        VoterSet.Voter self = voters.voter(1).orElseThrow();
        assertThat(self.directoryId())
                .isEqualTo(new UUID(directoryId.getMostSignificantBits(), directoryId.getLeastSignificantBits()));
        assertThat(self.endpoints()).containsEntry("CONTROLLER", new VoterSet.Endpoint("127.0.0.1", 9093));
        assertThatThrownBy(() -> StorageFormatter.format(config, "cluster-a", InitialVoters.standalone()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("is already formatted");
    }

    @Test
    void initialControllersAreWrittenAsGivenAndThisNodeTakesTheDirectoryIdListedForIt() throws Exception {
        Uuid one = Uuid.randomUuid();
        Uuid two = Uuid.randomUuid();
        BrokerConfig config = config(2, true);
        Uuid written = StorageFormatter.format(
                config, "cluster-a", InitialVoters.listed(List.of("1@host-1:9093:" + one, "2@host-2:9093:" + two)));
        assertThat(written).isEqualTo(two);
        VoterSet voters = bootstrapVoters(config.metadataLogDir());
        assertThat(voters.ids()).containsExactly(1, 2);
        assertThat(voters.voter(1).orElseThrow().endpoints())
                .containsEntry("CONTROLLER", new VoterSet.Endpoint("host-1", 9093));
    }

    @Test
    void inconsistentInputIsRefusedWithOneSentence() throws Exception {
        Uuid one = Uuid.randomUuid();
        assertThatThrownBy(() -> StorageFormatter.format(
                        config(2, true), "cluster-a", InitialVoters.listed(List.of("1@host-1:9093:" + one))))
                .hasMessageStartingWith("--initial-controllers does not name node.id 2");
        assertThatThrownBy(() -> StorageFormatter.format(
                        config(1, true),
                        "cluster-a",
                        InitialVoters.listed(List.of("1@host-1:9093:" + one, "1@h:1:" + one))))
                .hasMessageContaining("listed twice");
        assertThatThrownBy(() -> StorageFormatter.format(
                        config(1, true), "cluster-a", InitialVoters.listed(List.of("1@host-1:9093"))))
                .hasMessageContaining("is not ID@HOST:PORT:DIRECTORY_ID");
        assertThatThrownBy(() -> StorageFormatter.format(config(1, true), "cluster-a", null))
                .hasMessageContaining("give --standalone, --initial-controllers or --no-initial-controllers");
        assertThatThrownBy(() -> StorageFormatter.format(config(1, false), "cluster-a", InitialVoters.standalone()))
                .hasMessageContaining("are for a dynamic quorum");
        assertThat(Files.exists(dir.resolve("data").resolve("meta.properties"))).isFalse();
    }

    @Test
    void aNodeWithoutInitialControllersIsFormattedButHoldsNoVoters() throws Exception {
        BrokerConfig config = config(3, true);
        StorageFormatter.format(config, "cluster-a", InitialVoters.none());
        assertThat(MetaProperties.directoryId(config.metadataLogDir())).isNotNull();
        try (FileRaftLog log = FileRaftLog.open(
                MetadataRaftRuntime.storeDir(config.metadataLogDir()), FileRaftLog.DEFAULT_SEGMENT_BYTES)) {
            assertThat(log.endOffset()).isZero();
        }
        MetadataLogs.refuseUnformattedDynamicQuorum(config); // formatted: no complaint
    }

    @Test
    void aDynamicQuorumNodeNeverFormatsItselfAtFirstStart() {
        assertThatThrownBy(() -> MetadataLogs.refuseUnformattedDynamicQuorum(config(1, true)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("is not formatted for a dynamic quorum: run varve format");
        MetadataLogs.refuseUnformattedDynamicQuorum(config(1, false)); // a static quorum formats itself
    }
}

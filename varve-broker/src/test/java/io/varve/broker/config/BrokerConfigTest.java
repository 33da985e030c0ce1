package io.varve.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerConfigTest {

    @Test
    void defaultsMatchKafkaExceptListenerAndDataDir() {
        BrokerConfig config = BrokerConfig.fromMap(Map.of());
        assertThat(config.listeners()).containsExactly(new ListenerConfig("PLAINTEXT", "localhost", 9092, "PLAINTEXT"));
        assertThat(config.logDirs()).containsExactly(Path.of("./varve-data"));
        assertThat(config.numPartitions()).isEqualTo(1);
        assertThat(config.messageMaxBytes()).isEqualTo(1048588);
        assertThat(config.logSegmentBytes()).isEqualTo(1073741824L);
        assertThat(config.autoCreateTopicsEnable()).isTrue();
        assertThat(config.connectionsMaxIdleMs()).isEqualTo(600000L);
    }

    @Test
    void overridesApplyAfterTheFileInOrder(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("server.properties");
        Files.writeString(file, "num.partitions=3\nlog.dirs=/a,/b\nnode.id=7\n");
        BrokerConfig config = BrokerConfig.load(file, List.of("num.partitions=6", "num.partitions=9"));
        assertThat(config.numPartitions()).isEqualTo(9);
        assertThat(config.logDirs()).containsExactly(Path.of("/a"), Path.of("/b"));
        assertThat(config.nodeId()).isEqualTo(7);
    }

    @Test
    void unknownKeysAreCollectedNotFatal() {
        BrokerConfig config = BrokerConfig.fromMap(Map.of("no.such.key", "1", "log.retention.hours", "168"));
        assertThat(config.unknownKeys()).containsExactly("no.such.key");
    }

    @Test
    void invalidValuesStopWithOneSentence() {
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("num.partitions", "abc")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value 'abc' for configuration num.partitions: expected int.");
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("num.partitions", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("must be at least 1");
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("auto.create.topics.enable", "yes")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("expected true or false");
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("listeners", "localhost:9092")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("expected NAME://host:port");
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("listeners", "SSL://:9093")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("does not support yet");
        assertThatThrownBy(() -> BrokerConfig.load(null, List.of("novalue")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("expected key=value");
    }

    @Test
    void listenersParseHostsPortsAndNames() {
        BrokerConfig config = BrokerConfig.fromMap(Map.of(
                "listeners", "PLAINTEXT://:9092,CONTROLLER://127.0.0.1:9093",
                "advertised.listeners", "PLAINTEXT://broker1.example:19092"));
        assertThat(config.listeners()).extracting(ListenerConfig::name).containsExactly("PLAINTEXT", "CONTROLLER");
        assertThat(config.listeners().get(0).advertisedHost()).isEqualTo("localhost");
        assertThat(config.advertisedListeners())
                .containsExactly(new ListenerConfig("PLAINTEXT", "broker1.example", 19092, "PLAINTEXT"));
    }

    @Test
    void aQuorumThisReleaseCannotRunIsRefusedAtStartUpWithASentenceNamingTheKey() {
        assertThat(BrokerConfig.fromMap(Map.of("controller.quorum.voters", "1@localhost:9093"))
                        .nodeId())
                .isEqualTo(1);
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("process.roles", "broker")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("process.roles=broker needs a controller quorum");
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("process.roles", "broker,observer")))
                .hasMessageContaining("unknown role 'observer'");
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("controller.quorum.voters", "1@a:9093,2@b:9093,3@c:9093")))
                .hasMessageStartingWith("controller.quorum.voters names 3 voters, so listeners needs a listener");
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("controller.quorum.request.timeout.ms", "400")))
                .hasMessageStartingWith("controller.quorum.request.timeout.ms must be more than the 500 ms");
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("varve.metadata.raft.core.enable", "false")))
                .hasMessageStartingWith("varve.metadata.raft.core.enable=false asks for the single-voter Raft node");
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("controller.quorum.voters", "2@localhost:9093")))
                .hasMessageStartingWith("node.id 1 is not among controller.quorum.voters");
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("controller.quorum.voters", "one@localhost")))
                .hasMessageContaining("is not ID@HOST:PORT");
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("controller.quorum.bootstrap.servers", "localhost:9093")))
                .hasMessageStartingWith("controller.quorum.bootstrap.servers is set, so listeners needs a listener");
    }

    @Test
    void aDynamicQuorumTakesBootstrapServersAndNeverBothKindsOfQuorum() {
        Map<String, String> dynamic = new java.util.HashMap<>(Map.of(
                "controller.quorum.bootstrap.servers", "localhost:9093,[::1]:9094",
                "listeners", "PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093"));
        BrokerConfig config = BrokerConfig.fromMap(dynamic);
        assertThat(config.controllerQuorumBootstrapServers())
                .extracting(a -> a.getHostString() + ":" + a.getPort())
                .containsExactly("localhost:9093", "::1:9094");

        Map<String, String> both = new java.util.HashMap<>(dynamic);
        both.put("controller.quorum.voters", "1@localhost:9093");
        assertThatThrownBy(() -> BrokerConfig.fromMap(both))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(
                        "controller.quorum.voters and controller.quorum.bootstrap.servers are both set");

        Map<String, String> badServer = new java.util.HashMap<>(dynamic);
        badServer.put("controller.quorum.bootstrap.servers", "localhost");
        assertThatThrownBy(() -> BrokerConfig.fromMap(badServer)).hasMessageContaining("is not HOST:PORT");

        Map<String, String> noControllerListener = new java.util.HashMap<>(dynamic);
        noControllerListener.put("listeners", "PLAINTEXT://localhost:9092");
        assertThatThrownBy(() -> BrokerConfig.fromMap(noControllerListener))
                .hasMessageStartingWith("controller.quorum.bootstrap.servers is set, so listeners needs a listener");
    }

    @Test
    void severalVotersAreAcceptedOnlyWithAControllerListener() {
        Map<String, String> threeVoters = Map.of(
                "controller.quorum.voters", "1@localhost:9093,2@localhost:9094,3@localhost:9095",
                "listeners", "PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093");
        BrokerConfig config = BrokerConfig.fromMap(threeVoters);
        assertThat(config.controllerQuorumVoters()).containsOnlyKeys(1, 2, 3);
        assertThat(config.quorumTimeouts()).isEqualTo(io.varve.raft.node.QuorumTimeouts.KAFKA_DEFAULTS);
        Map<String, String> faster = new java.util.HashMap<>(threeVoters);
        faster.put("controller.quorum.election.timeout.ms", "300");
        faster.put("controller.quorum.fetch.timeout.ms", "600");
        assertThat(BrokerConfig.fromMap(faster).quorumTimeouts())
                .isEqualTo(new io.varve.raft.node.QuorumTimeouts(300, 1000, 600, 2000, 20));
        assertThat(config.controllerQuorumVoters().get(2).getPort()).isEqualTo(9094);
        assertThat(config.controllerListeners())
                .extracting(ListenerConfig::name)
                .containsExactly("CONTROLLER");

        Map<String, String> noControllerListener = new java.util.HashMap<>(threeVoters);
        noControllerListener.put("listeners", "PLAINTEXT://localhost:9092");
        assertThatThrownBy(() -> BrokerConfig.fromMap(noControllerListener))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("needs a listener named in controller.listener.names");
        Map<String, String> notAmongThem = new java.util.HashMap<>(threeVoters);
        notAmongThem.put("node.id", "4");
        assertThatThrownBy(() -> BrokerConfig.fromMap(notAmongThem))
                .hasMessageStartingWith("node.id 4 is not among controller.quorum.voters");
        Map<String, String> twice = new java.util.HashMap<>(threeVoters);
        twice.put("controller.quorum.voters", "1@localhost:9093,1@localhost:9094");
        assertThatThrownBy(() -> BrokerConfig.fromMap(twice)).hasMessageContaining("names voter 1 twice");
    }
}

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
    void metadataSnapshotAndSegmentKeysHaveKafkasDefaultsAndBounds() {
        BrokerConfig defaults = BrokerConfig.fromMap(Map.of());
        assertThat(defaults.metadataSnapshotMaxRecordBytes()).isEqualTo(20L * 1024 * 1024);
        assertThat(defaults.metadataSnapshotMaxIntervalMs()).isEqualTo(3_600_000L);
        assertThat(defaults.metadataLogSegmentBytes()).isEqualTo(1024 * 1024 * 1024);

        BrokerConfig small = BrokerConfig.fromMap(Map.of(
                "metadata.log.max.record.bytes.between.snapshots", "1024",
                "metadata.log.max.snapshot.interval.ms", "0",
                "internal.metadata.log.segment.bytes", "4096"));
        assertThat(small.metadataSnapshotMaxRecordBytes()).isEqualTo(1024);
        assertThat(small.metadataSnapshotMaxIntervalMs()).isZero();
        assertThat(small.metadataLogSegmentBytes()).isEqualTo(4096);

        // Kafka's floor for the public key is 8 MiB; only the internal one goes lower (for tests).
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("metadata.log.segment.bytes", "4096")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("metadata.log.segment.bytes")
                .hasMessageContaining("must be at least 8388608");
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("metadata.log.max.record.bytes.between.snapshots", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("metadata.log.max.record.bytes.between.snapshots");
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("metadata.log.max.snapshot.interval.ms", "-1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("metadata.log.max.snapshot.interval.ms");
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
                .hasMessageContaining("ssl.keystore.location is not set");
        assertThatThrownBy(() -> BrokerConfig.load(null, List.of("novalue")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("expected key=value");
    }

    @Test
    void httpListenersDefaultToLocalhost9644AndEmptyTurnsThemOff() {
        BrokerConfig defaults = BrokerConfig.fromMap(Map.of());
        assertThat(defaults.httpListeners()).containsExactly(new io.varve.http.HttpEndpoint("localhost", 9644));
        assertThat(defaults.httpListenersExplicit()).isFalse();
        BrokerConfig off = BrokerConfig.fromMap(Map.of("varve.http.listeners", ""));
        assertThat(off.httpListeners()).isEmpty();
        assertThat(off.httpListenersExplicit()).isTrue();
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("varve.http.listeners", "localhost:9644")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid entry 'localhost:9644' in varve.http.listeners: expected http://host:port or"
                        + " https://host:port.");
    }

    @Test
    void metricsRefreshDefaultsToTenSecondsZeroMeansEveryScrapeAndANegativeValueStopsTheStart() {
        assertThat(BrokerConfig.fromMap(Map.of()).metricsRefreshMs()).isEqualTo(10_000);
        assertThat(BrokerConfig.fromMap(Map.of("varve.metrics.refresh.ms", "0")).metricsRefreshMs())
                .isZero();
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("varve.metrics.refresh.ms", "-1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("varve.metrics.refresh.ms");
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
                .hasMessageStartingWith("process.roles=broker needs controller.quorum.voters");
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
        assertThat(config.quorumTimeouts()).isEqualTo(io.varve.raft.node.QuorumTimeouts.VARVE_DEFAULTS);
        Map<String, String> faster = new java.util.HashMap<>(threeVoters);
        faster.put("controller.quorum.election.timeout.ms", "300");
        faster.put("controller.quorum.fetch.timeout.ms", "600");
        assertThat(BrokerConfig.fromMap(faster).quorumTimeouts())
                .isEqualTo(new io.varve.raft.node.QuorumTimeouts(300, 250, 600, 2000, 20));
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

    @Test
    void brokerOnlyAndControllerOnlyNodesAreAcceptedWithKafkasChecks() {
        Map<String, String> broker = Map.of(
                "process.roles", "broker",
                "node.id", "2",
                "controller.quorum.voters", "1@localhost:9093",
                "listeners", "PLAINTEXT://localhost:9092");
        assertThat(BrokerConfig.fromMap(broker).processRoles()).containsExactly("broker");
        Map<String, String> controller = Map.of(
                "process.roles", "controller",
                "controller.quorum.voters", "1@localhost:9093",
                "listeners", "CONTROLLER://localhost:9093");
        assertThat(BrokerConfig.fromMap(controller).controllerListeners()).hasSize(1);

        Map<String, String> noVoters = new java.util.HashMap<>(broker);
        noVoters.remove("controller.quorum.voters");
        assertThatThrownBy(() -> BrokerConfig.fromMap(noVoters))
                .hasMessageStartingWith("process.roles=broker needs controller.quorum.voters");
        Map<String, String> brokerAsVoter = new java.util.HashMap<>(broker);
        brokerAsVoter.put("node.id", "1");
        assertThatThrownBy(() -> BrokerConfig.fromMap(brokerAsVoter))
                .hasMessageStartingWith("node.id 1 is among controller.quorum.voters, but process.roles=broker");
        Map<String, String> brokerWithControllerListener = new java.util.HashMap<>(broker);
        brokerWithControllerListener.put("listeners", "PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093");
        assertThatThrownBy(() -> BrokerConfig.fromMap(brokerWithControllerListener))
                .hasMessageStartingWith("listeners names the controller listener CONTROLLER, but process.roles=broker");
        Map<String, String> controllerWithoutListener = new java.util.HashMap<>(controller);
        controllerWithoutListener.put("listeners", "PLAINTEXT://localhost:9092");
        assertThatThrownBy(() -> BrokerConfig.fromMap(controllerWithoutListener))
                .hasMessageStartingWith(
                        "process.roles=controller listeners needs a listener named in" + " controller.listener.names");
        Map<String, String> controllerWithClientListener = new java.util.HashMap<>(controller);
        controllerWithClientListener.put("listeners", "CONTROLLER://localhost:9093,PLAINTEXT://localhost:9092");
        assertThatThrownBy(() -> BrokerConfig.fromMap(controllerWithClientListener))
                .hasMessageStartingWith("listeners names PLAINTEXT, which is not in controller.listener.names");
        Map<String, String> controllerNotVoter = new java.util.HashMap<>(controller);
        controllerNotVoter.put("node.id", "3");
        assertThatThrownBy(() -> BrokerConfig.fromMap(controllerNotVoter))
                .hasMessageStartingWith("node.id 3 is not among controller.quorum.voters");
        Map<String, String> saslToControllers = new java.util.HashMap<>(broker);
        saslToControllers.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_SSL");
        // a SASL controller listener needs the broker's login: Kafka's default mechanism (GSSAPI) is refused
        assertThatThrownBy(() -> BrokerConfig.fromMap(saslToControllers))
                .hasMessageStartingWith("sasl.mechanism.controller.protocol=GSSAPI (Kafka's default)");
        Map<String, String> sslToControllers = new java.util.HashMap<>(broker);
        sslToControllers.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:SSL");
        assertThat(BrokerConfig.fromMap(sslToControllers).securityProtocolOf("CONTROLLER"))
                .isEqualTo("SSL");
        Map<String, String> unmappedController = new java.util.HashMap<>(broker);
        unmappedController.put("controller.listener.names", "QUORUM");
        assertThatThrownBy(() -> BrokerConfig.fromMap(unmappedController))
                .hasMessageStartingWith("controller.listener.names names QUORUM, which listener.security.protocol.map"
                        + " does not map");
        Map<String, String> unknownInterBroker = new java.util.HashMap<>(broker);
        unknownInterBroker.put("inter.broker.listener.name", "INTERNAL");
        assertThatThrownBy(() -> BrokerConfig.fromMap(unknownInterBroker))
                .hasMessageStartingWith("inter.broker.listener.name INTERNAL is not a listener of this broker");
    }

    @Test
    void aReplicaSelectorVarveDoesNotProvideRefusesTheStartNamingTheKey() {
        assertThatThrownBy(() -> BrokerConfig.fromMap(Map.of("replica.selector.class", "com.example.NearestSelector")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("replica.selector.class com.example.NearestSelector is not available");
        assertThat(BrokerConfig.fromMap(Map.of(
                                "replica.selector.class", "org.apache.kafka.common.replica.RackAwareReplicaSelector"))
                        .replicaSelector())
                .isPresent();
        assertThat(BrokerConfig.fromMap(Map.of()).replicaSelector()).isEmpty();
    }
}

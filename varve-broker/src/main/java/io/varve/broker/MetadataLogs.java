package io.varve.broker;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import io.varve.broker.config.ListenerConfig;
import io.varve.broker.network.SocketServer;
import io.varve.broker.raft.ControllerQuorumInfo;
import io.varve.broker.raft.KafkaRaftTransport;
import io.varve.broker.raft.RaftAddressBook;
import io.varve.broker.raft.RaftRequestDispatcher;
import io.varve.broker.raft.RaftWireMapping;
import io.varve.raft.MetadataRaft;
import io.varve.raft.core.message.VoterSet;
import io.varve.raft.legacy.LegacyLogMigration;
import io.varve.raft.node.MetadataRaftRuntime;
import io.varve.raft.node.RaftRuntime;
import io.varve.raft.node.RaftTransport;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * The metadata log: the KRaft-style runtime in {@value MetadataRaftRuntime#DIR_NAME} under {@code metadata.log.dir}. A
 * directory written by the single-voter node of earlier releases is moved onto it first ({@link LegacyLogMigration}).
 *
 * <p>With several voters ({@code controller.quorum.voters}) or a dynamic quorum ({@code
 * controller.quorum.bootstrap.servers}, KIP-853: kraft.version 1, voters in the log) the replicas talk Kafka's Raft
 * requests over the controller listener, served by a socket server of its own that starts here, before the Raft
 * runtime, so that the voters can elect while the rest of the node is still starting. That listener also answers
 * admin clients ({@code kafka-metadata-quorum --bootstrap-controller}).
 */
final class MetadataLogs implements AutoCloseable {
    private static final long START_TIMEOUT_MS = 30_000;

    private final MetadataRaft raft;
    /** Null unless several voters: the controller listener's server. */
    private final SocketServer controllerNetwork;

    private final RaftRequestDispatcher raftRequests;

    private MetadataLogs(MetadataRaft raft, SocketServer controllerNetwork, RaftRequestDispatcher raftRequests) {
        this.raft = raft;
        this.controllerNetwork = controllerNetwork;
        this.raftRequests = raftRequests;
    }

    static MetadataLogs open(BrokerConfig config, String clusterId) throws InterruptedException, java.io.IOException {
        int nodeId = config.nodeId();
        Path parent = config.metadataLogDir();
        LegacyLogMigration.migrateIfPresent(parent, nodeId, clusterId);
        Map<Integer, InetSocketAddress> voters = config.controllerQuorumVoters();
        boolean dynamic = !config.controllerQuorumBootstrapServers().isEmpty();
        if (voters.size() <= 1 && !dynamic) {
            return new MetadataLogs(
                    new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                            nodeId,
                            clusterId,
                            Set.of(nodeId),
                            parent,
                            RaftTransport.none(),
                            START_TIMEOUT_MS,
                            config.quorumTimeouts())),
                    null,
                    null);
        }
        String listenerName = config.controllerListenerNames().get(0);
        RaftAddressBook addresses =
                new RaftAddressBook(listenerName, voters, config.controllerQuorumBootstrapServers());
        MetadataRaftRuntime.Quorum quorum = dynamic
                ? new MetadataRaftRuntime.Quorum(1, addresses.bootstrapServerCount(), localVoter(config))
                : MetadataRaftRuntime.Quorum.staticVoters(nodeId);
        KafkaRaftTransport transport = new KafkaRaftTransport(
                nodeId,
                new RaftWireMapping(
                        nodeId,
                        RaftWireMapping.Limits.of(MetadataRaftRuntime.coreConfig(
                                nodeId, clusterId, voters.keySet(), config.quorumTimeouts()))),
                addresses,
                KafkaRaftTransport.Settings.defaults(),
                RaftRuntime.monotonicClockMs());
        MetadataRaftRuntime runtime = new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                nodeId,
                clusterId,
                voters.keySet(),
                parent,
                transport,
                START_TIMEOUT_MS,
                config.quorumTimeouts(),
                quorum));
        addresses.watchVoters(() -> runtime.status().voters());
        transport
                .requestDispatcher()
                .describeQuorumWith(new ControllerQuorumInfo(
                        clusterId,
                        () -> runtime.status().leaderId(),
                        () -> {
                            Set<Integer> ids = runtime.status().voters().ids();
                            return ids.isEmpty() ? voters.keySet() : ids;
                        },
                        addresses,
                        System.currentTimeMillis()
                                - RaftRuntime.monotonicClockMs().getAsLong()));
        SocketServer controllerNetwork = new SocketServer(new SocketServer.Settings(
                config.socketRequestMaxBytes(),
                config.connectionsMaxIdleMs(),
                1,
                config.socketSendBufferBytes(),
                config.socketReceiveBufferBytes()));
        try {
            controllerNetwork.start(config.controllerListeners(), transport.dispatcher());
        } catch (RuntimeException | InterruptedException e) {
            controllerNetwork.close();
            throw e;
        }
        return new MetadataLogs(runtime, controllerNetwork, transport.requestDispatcher());
    }

    /**
     * A controller of a dynamic quorum is formatted with its initial voters ({@code varve format}), never at first
     * start: whether it starts a quorum or joins one is the operator's to say. Called before the node formats itself.
     */
    static void refuseUnformattedDynamicQuorum(BrokerConfig config) {
        if (config.controllerQuorumBootstrapServers().isEmpty()
                || Files.exists(MetadataRaftRuntime.storeDir(config.metadataLogDir()))) {
            return;
        }
        throw new ConfigException("controller.quorum.bootstrap.servers is set and " + config.metadataLogDir()
                + " is not formatted for a dynamic quorum: run varve format --config FILE --cluster-id ID with"
                + " --standalone (the first controller), --initial-controllers or --no-initial-controllers first.");
    }

    /** This node as a voter of a dynamic quorum: the metadata dir's directory id and its controller listeners. */
    private static VoterSet.Voter localVoter(BrokerConfig config) throws java.io.IOException {
        Uuid directoryId = MetaProperties.directoryId(config.metadataLogDir());
        if (directoryId == null) {
            throw new ConfigException("The metadata log dir " + config.metadataLogDir() + " has no directory.id in its"
                    + " meta.properties: format it with varve format.");
        }
        return StorageFormatter.localVoter(
                config, new UUID(directoryId.getMostSignificantBits(), directoryId.getLeastSignificantBits()));
    }

    /** Null unless a controller listener serves the Raft APIs: then the client listener's admin requests go here too. */
    RaftRequestDispatcher raftRequests() {
        return raftRequests;
    }

    MetadataRaft raft() {
        return raft;
    }

    /** Whether other voters hold the metadata log too: then this node's controller leads only some of the time. */
    boolean severalVoters() {
        return controllerNetwork != null;
    }

    /** The listeners the node's request server binds: all, less the controller's when it has a server of its own. */
    List<ListenerConfig> requestListeners(BrokerConfig config) {
        if (controllerNetwork == null) {
            return config.listeners();
        }
        List<ListenerConfig> controllers = config.controllerListeners();
        return config.listeners().stream().filter(l -> !controllers.contains(l)).toList();
    }

    /** Closes the controller listener (the Raft log is closed by its owner first). */
    @Override
    public void close() {
        if (controllerNetwork != null) {
            controllerNetwork.close();
        }
    }
}

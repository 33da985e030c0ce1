package io.varve.broker;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ListenerConfig;
import io.varve.broker.network.SocketServer;
import io.varve.broker.raft.KafkaRaftTransport;
import io.varve.broker.raft.RaftWireMapping;
import io.varve.raft.MetadataRaft;
import io.varve.raft.legacy.LegacyLogMigration;
import io.varve.raft.node.MetadataRaftRuntime;
import io.varve.raft.node.RaftRuntime;
import io.varve.raft.node.RaftTransport;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The metadata log: the KRaft-style runtime in {@value MetadataRaftRuntime#DIR_NAME} under {@code metadata.log.dir}. A
 * directory written by the single-voter node of earlier releases is moved onto it first ({@link LegacyLogMigration}).
 *
 * <p>With several voters ({@code controller.quorum.voters}) the replicas talk Kafka's Raft requests over the
 * controller listener, served by a socket server of its own that starts here, before the Raft runtime, so that the
 * voters can elect while the rest of the node is still starting.
 */
final class MetadataLogs implements AutoCloseable {
    private static final long START_TIMEOUT_MS = 30_000;

    private final MetadataRaft raft;
    /** Null unless several voters: the controller listener's server. */
    private final SocketServer controllerNetwork;

    private MetadataLogs(MetadataRaft raft, SocketServer controllerNetwork) {
        this.raft = raft;
        this.controllerNetwork = controllerNetwork;
    }

    static MetadataLogs open(BrokerConfig config, String clusterId) throws InterruptedException {
        int nodeId = config.nodeId();
        Path parent = config.metadataLogDir();
        LegacyLogMigration.migrateIfPresent(parent, nodeId, clusterId);
        Map<Integer, InetSocketAddress> voters = config.controllerQuorumVoters();
        if (voters.size() <= 1) {
            return new MetadataLogs(
                    new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                            nodeId,
                            clusterId,
                            Set.of(nodeId),
                            parent,
                            RaftTransport.none(),
                            START_TIMEOUT_MS,
                            config.quorumTimeouts(),
                            config.metadataLogSegmentBytes())),
                    null);
        }
        KafkaRaftTransport transport = new KafkaRaftTransport(
                nodeId,
                new RaftWireMapping(
                        nodeId,
                        RaftWireMapping.Limits.of(MetadataRaftRuntime.coreConfig(
                                nodeId, clusterId, voters.keySet(), config.quorumTimeouts()))),
                voters::get,
                KafkaRaftTransport.Settings.defaults(),
                RaftRuntime.monotonicClockMs());
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
        return new MetadataLogs(
                new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                        nodeId,
                        clusterId,
                        voters.keySet(),
                        parent,
                        transport,
                        START_TIMEOUT_MS,
                        config.quorumTimeouts(),
                        config.metadataLogSegmentBytes())),
                controllerNetwork);
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

package io.varve.broker;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ListenerConfig;
import io.varve.broker.controller.ControllerListenerDispatcher;
import io.varve.broker.network.RequestDispatcher;
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
 * <p>With {@code controller.quorum.voters} and a controller listener the replicas talk Kafka's Raft requests over
 * the controller listener, served by a socket server of its own that starts here, before the Raft runtime, so that
 * the voters can elect while the rest of the node is still starting; the controller's other APIs join it once the
 * controller runs ({@link #serveControllerApis}). A broker-only node is an observer: it sends fetches to the voters
 * and serves no controller listener.
 */
final class MetadataLogs implements AutoCloseable {
    private static final long START_TIMEOUT_MS = 30_000;

    private final MetadataRaft raft;
    /** Null unless this node serves a controller listener of its own (new stack, a controller with one). */
    private final SocketServer controllerNetwork;
    /** What {@link #controllerNetwork} dispatches to; null with it. */
    private final ControllerListenerDispatcher controllerDispatcher;

    private MetadataLogs(
            MetadataRaft raft, SocketServer controllerNetwork, ControllerListenerDispatcher controllerDispatcher) {
        this.raft = raft;
        this.controllerNetwork = controllerNetwork;
        this.controllerDispatcher = controllerDispatcher;
    }

    static MetadataLogs open(BrokerConfig config, String clusterId) throws InterruptedException {
        int nodeId = config.nodeId();
        Path parent = config.metadataLogDir();
        LegacyLogMigration.migrateIfPresent(parent, nodeId, clusterId);
        Map<Integer, InetSocketAddress> voters = config.controllerQuorumVoters();
        boolean controller = config.processRoles().contains("controller");
        if (controller
                && (voters.isEmpty()
                        || (voters.size() == 1 && config.controllerListeners().isEmpty()))) {
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
                    null,
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
        SocketServer controllerNetwork = null;
        ControllerListenerDispatcher dispatcher = null;
        if (controller) {
            // A controller serves its listener even as the only voter: brokers fetch the log from it as observers.
            dispatcher = new ControllerListenerDispatcher(transport.dispatcher());
            controllerNetwork = new SocketServer(new SocketServer.Settings(
                    config.socketRequestMaxBytes(),
                    config.connectionsMaxIdleMs(),
                    1,
                    config.socketSendBufferBytes(),
                    config.socketReceiveBufferBytes()));
            try {
                controllerNetwork.start(config.controllerListeners(), dispatcher);
            } catch (RuntimeException | InterruptedException e) {
                controllerNetwork.close();
                throw e;
            }
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
                controllerNetwork,
                dispatcher);
    }

    MetadataRaft raft() {
        return raft;
    }

    /**
     * Whether the metadata log has replicas on other nodes (other voters, or this node is an observer): then this
     * node's controller, if it has one, leads only some of the time, and other brokers may register.
     */
    boolean sharedWithOtherNodes(BrokerConfig config) {
        Map<Integer, InetSocketAddress> voters = config.controllerQuorumVoters();
        return !(voters.isEmpty() || voters.keySet().equals(Set.of(config.nodeId())));
    }

    /** Whether this node serves a controller listener of its own. */
    boolean servesControllerListener() {
        return controllerNetwork != null;
    }

    /** Starts answering the controller's APIs (besides Raft's) on the controller listener. */
    void serveControllerApis(RequestDispatcher apis) {
        if (controllerDispatcher != null) {
            controllerDispatcher.install(apis);
        }
    }

    /** The port a controller listener is bound to (tests configure port 0), or -1. */
    int controllerPort(String listenerName) {
        return controllerNetwork == null ? -1 : controllerNetwork.boundPort(listenerName);
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

package io.varve.broker;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import io.varve.broker.config.ListenerConfig;
import io.varve.broker.network.SocketServer;
import io.varve.broker.raft.KafkaRaftTransport;
import io.varve.broker.raft.RaftWireMapping;
import io.varve.raft.MetadataRaft;
import io.varve.raft.RaftConfig;
import io.varve.raft.RaftNode;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.OutboundMessage;
import io.varve.raft.node.MetadataRaftRuntime;
import io.varve.raft.node.RaftRuntime;
import io.varve.raft.node.RaftTransport;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Chooses the Raft implementation behind the metadata log ({@code varve.metadata.raft.core.enable}): the
 * single-voter {@link RaftNode} in {@code __cluster_metadata-0} (the default) or the KRaft-style runtime in
 * {@value MetadataRaftRuntime#DIR_NAME}. Each keeps to its own directory, and a node never starts on the other's
 * files: the two formats differ and neither converts the other.
 *
 * <p>With several voters ({@code controller.quorum.voters}, new stack only) the replicas talk Kafka's Raft requests
 * over the controller listener, served by a socket server of its own that starts here, before the Raft runtime, so
 * that the voters can elect while the rest of the node is still starting.
 */
final class MetadataLogs implements AutoCloseable {
    static final String SETTING = "varve.metadata.raft.core.enable";
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
        RaftConfig nodeConfig = RaftConfig.builder()
                .nodeId(nodeId)
                .voters(Set.of(nodeId))
                .logDir(parent)
                .build();
        Path oldDir = nodeConfig.metadataLogDir();
        Path newDir = MetadataRaftRuntime.storeDir(parent);
        if (!config.metadataRaftCoreEnable()) {
            refuseIfPresent(newDir, "the KRaft-style Raft runtime", "true");
            return new MetadataLogs(new RaftNode(nodeConfig), null);
        }
        refuseIfPresent(oldDir, "the single-voter Raft node", "false");
        Map<Integer, InetSocketAddress> voters = config.controllerQuorumVoters();
        if (voters.size() <= 1) {
            return new MetadataLogs(
                    new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                            nodeId,
                            clusterId,
                            Set.of(nodeId),
                            parent,
                            new LoneVoterTransport(),
                            START_TIMEOUT_MS,
                            config.metadataLogSegmentBytes())),
                    null);
        }
        KafkaRaftTransport transport = new KafkaRaftTransport(
                nodeId,
                new RaftWireMapping(
                        nodeId,
                        RaftWireMapping.Limits.of(MetadataRaftRuntime.coreConfig(nodeId, clusterId, voters.keySet()))),
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

    private static void refuseIfPresent(Path otherDir, String otherStack, String otherSetting) {
        if (Files.exists(otherDir)) {
            throw new ConfigException("The metadata log in " + otherDir + " was written by " + otherStack
                    + ", which this node does not run: start it with " + SETTING + "=" + otherSetting
                    + " or point metadata.log.dir at another directory.");
        }
    }

    /** A quorum of one has nobody to talk to. */
    private static final class LoneVoterTransport implements RaftTransport {
        @Override
        public void start(Predicate<InboundMessage> inbound) {}

        @Override
        public void send(OutboundMessage message) {}

        @Override
        public void close() {}
    }
}

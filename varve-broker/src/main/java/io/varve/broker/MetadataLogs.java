package io.varve.broker;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import io.varve.broker.config.ListenerConfig;
import io.varve.broker.controller.ControllerListenerDispatcher;
import io.varve.broker.network.RequestDispatcher;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * The metadata log: the KRaft-style runtime in {@value MetadataRaftRuntime#DIR_NAME} under {@code metadata.log.dir}. A
 * directory written by the single-voter node of earlier releases is moved onto it first ({@link LegacyLogMigration}).
 *
 * <p>With {@code controller.quorum.voters} and a controller listener, or a dynamic quorum ({@code
 * controller.quorum.bootstrap.servers}, KIP-853: kraft.version 1, voters in the log), the replicas talk Kafka's Raft
 * requests over the controller listener, served by a socket server of its own that starts here, before the Raft
 * runtime, so that the voters can elect while the rest of the node is still starting; the controller's other APIs
 * join it once the controller runs ({@link #serveControllerApis}). A broker-only node is an observer: it sends fetches
 * to the voters and serves no controller listener. Replicas find each other through a {@link RaftAddressBook}.
 */
final class MetadataLogs implements AutoCloseable {
    private static final long START_TIMEOUT_MS = 30_000;

    private final MetadataRaft raft;
    /** Null unless this node serves a controller listener of its own (new stack, a controller with one). */
    private final SocketServer controllerNetwork;
    /** What {@link #controllerNetwork} dispatches to; null with it. */
    private final ControllerListenerDispatcher controllerDispatcher;
    /** Null for a lone voter without a transport: the Raft requests of the controller listener. */
    private final RaftRequestDispatcher raftRequests;
    /** Null for a lone voter without a transport. */
    private final RaftAddressBook addresses;
    /** The token validators of the controller listeners that enable OAUTHBEARER; null when none does. */
    private final io.varve.broker.security.OAuthBearerValidators controllerTokens;
    /** Null without an authorizer or a controller listener: the check of the listener's Raft requests. */
    private final io.varve.broker.security.RaftAuthorization raftAuthorization;

    private MetadataLogs(
            MetadataRaft raft,
            SocketServer controllerNetwork,
            ControllerListenerDispatcher controllerDispatcher,
            RaftRequestDispatcher raftRequests,
            RaftAddressBook addresses,
            io.varve.broker.security.OAuthBearerValidators controllerTokens,
            io.varve.broker.security.RaftAuthorization raftAuthorization) {
        this.controllerTokens = controllerTokens;
        this.raftAuthorization = raftAuthorization;
        this.raft = raft;
        this.controllerNetwork = controllerNetwork;
        this.controllerDispatcher = controllerDispatcher;
        this.raftRequests = raftRequests;
        this.addresses = addresses;
    }

    static MetadataLogs open(BrokerConfig config, String clusterId) throws InterruptedException, java.io.IOException {
        return open(config, clusterId, new java.util.HashMap<>());
    }

    /**
     * As above; a TLS controller listener's server context is taken from (or put in) {@code tlsContexts}, so that a
     * keystore reload of that listener ({@link io.varve.broker.security.KeystoreReloader}) reaches it.
     */
    static MetadataLogs open(
            BrokerConfig config,
            String clusterId,
            Map<String, io.varve.broker.security.ReloadableSslContext> tlsContexts)
            throws InterruptedException, java.io.IOException {
        int nodeId = config.nodeId();
        Path parent = config.metadataLogDir();
        LegacyLogMigration.migrateIfPresent(parent, nodeId, clusterId);
        Map<Integer, InetSocketAddress> voters = config.controllerQuorumVoters();
        boolean controller = config.processRoles().contains("controller");
        boolean dynamic = !config.controllerQuorumBootstrapServers().isEmpty();
        if (controller
                && !dynamic
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
                    null,
                    null,
                    null,
                    null,
                    null);
        }
        RaftAddressBook addresses = new RaftAddressBook(
                config.controllerListenerNames().get(0), voters, config.controllerQuorumBootstrapServers());
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
                RaftRuntime.monotonicClockMs(),
                io.varve.broker.network.client.ClientSecurity.forController(config));
        MetadataRaftRuntime runtime = new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                nodeId,
                clusterId,
                voters.keySet(),
                parent,
                transport,
                START_TIMEOUT_MS,
                config.quorumTimeouts(),
                config.metadataLogSegmentBytes(),
                quorum));
        addresses.watchVoters(() -> runtime.status().voters());
        transport
                .requestDispatcher()
                .describeQuorumWith(new ControllerQuorumInfo(
                        addresses,
                        System.currentTimeMillis()
                                - RaftRuntime.monotonicClockMs().getAsLong()));
        SocketServer controllerNetwork = null;
        ControllerListenerDispatcher dispatcher = null;
        io.varve.broker.security.OAuthBearerValidators controllerTokens = null;
        io.varve.broker.security.RaftAuthorization raftAuthorization = null;
        if (controller) {
            // A controller serves its listener even as the only voter: brokers fetch the log from it as observers.
            controllerTokens = io.varve.broker.security.OAuthBearerValidators.start(
                    config.security(),
                    config.controllerListeners().stream()
                            .map(ListenerConfig::name)
                            .toList(),
                    System::currentTimeMillis);
            dispatcher = new ControllerListenerDispatcher(
                    transport.dispatcher(),
                    io.varve.broker.security.ControllerListenerSasl.dispatcher(
                            config.security(), config.controllerListeners(), controllerTokens));
            if (config.security().authorization() != null) {
                raftAuthorization = new io.varve.broker.security.RaftAuthorization(
                        config.security().authorization());
                dispatcher.authorizeRaftWith(raftAuthorization);
            }
            controllerNetwork = new SocketServer(new SocketServer.Settings(
                    config.socketRequestMaxBytes(),
                    config.connectionsMaxIdleMs(),
                    1,
                    config.socketSendBufferBytes(),
                    config.socketReceiveBufferBytes()));
            try {
                // A TLS controller listener's front runs the handshake; a SASL one's exchange is the dispatcher's.
                controllerNetwork.start(
                        config.controllerListeners(),
                        dispatcher,
                        io.varve.broker.security.TlsContexts.fronts(
                                config.security(), config.controllerListeners(), tlsContexts));
            } catch (RuntimeException | InterruptedException e) {
                controllerNetwork.close();
                if (controllerTokens != null) {
                    controllerTokens.close();
                }
                throw e;
            }
        }
        return new MetadataLogs(
                runtime,
                controllerNetwork,
                dispatcher,
                transport.requestDispatcher(),
                addresses,
                controllerTokens,
                raftAuthorization);
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
        return controllerNetwork == null ? null : raftRequests;
    }

    /**
     * Every controller's id and controller-listener address, what DescribeCluster on the controller listener lists:
     * the voter set in effect with its endpoints on a dynamic quorum, else {@code controller.quorum.voters}.
     */
    Map<Integer, InetSocketAddress> controllers(BrokerConfig config) {
        Map<Integer, InetSocketAddress> configured = config.controllerQuorumVoters();
        if (addresses == null || !(raft instanceof MetadataRaftRuntime runtime)) {
            return configured;
        }
        Set<Integer> ids = runtime.status().voters().ids();
        if (ids.isEmpty()) {
            return configured;
        }
        Map<Integer, InetSocketAddress> out = new LinkedHashMap<>();
        for (int id : ids) {
            InetSocketAddress address = addresses.apply(id);
            if (address != null) {
                out.put(id, address);
            }
        }
        return out;
    }

    /** Where a controller listens on the controller listener, or null: the way to the active controller. */
    InetSocketAddress controllerAddress(BrokerConfig config, int id) {
        return addresses == null ? config.controllerQuorumVoters().get(id) : addresses.apply(id);
    }

    MetadataRaft raft() {
        return raft;
    }

    /**
     * Whether the metadata log has replicas on other nodes (other voters, or this node is an observer): then this
     * node's controller, if it has one, leads only some of the time, and other brokers may register.
     */
    boolean sharedWithOtherNodes(BrokerConfig config) {
        if (!config.controllerQuorumBootstrapServers().isEmpty()) {
            return true; // a dynamic quorum: other controllers may join at any time
        }
        Map<Integer, InetSocketAddress> voters = config.controllerQuorumVoters();
        return !(voters.isEmpty() || voters.keySet().equals(Set.of(config.nodeId())));
    }

    /** Whether this node serves a controller listener of its own. */
    boolean servesControllerListener() {
        return controllerNetwork != null;
    }

    /** With an authorizer, the controller listener's Raft requests are checked against the ACLs of its image too. */
    void authorizeRaftWith(io.varve.broker.security.BrokerAuthorizer authorizer) {
        if (raftAuthorization != null && authorizer != null) {
            raftAuthorization.useAuthorizer(authorizer);
        }
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
        if (controllerTokens != null) {
            controllerTokens.close();
        }
    }
}

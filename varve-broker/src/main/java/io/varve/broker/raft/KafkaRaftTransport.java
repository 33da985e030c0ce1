package io.varve.broker.raft;

import io.varve.broker.network.RequestDispatcher;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.OutboundMessage;
import io.varve.raft.core.message.RaftResponse;
import io.varve.raft.node.RaftTransport;
import java.net.InetSocketAddress;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * A {@link RaftTransport} that speaks Kafka's Raft requests over TCP between controllers. Requests from
 * the core go out through a {@link RaftPeerClient} (one connection per peer, addressed by {@code
 * endpoints}: {@code controller.quorum.voters}); requests from peers arrive through {@link #dispatcher()},
 * which the owner gives to a {@code SocketServer} bound on the controller listener; the core's answers go
 * back on the connection that asked. Not wired into the broker's start path yet.
 */
public final class KafkaRaftTransport implements RaftTransport {

    /**
     * Limits: frame size, requests queued while connecting and awaiting answers per peer, connect timeout,
     * back-off after a failed connect, how long a peer's request may wait for the core's answer.
     */
    public record Settings(
            int maxFrameBytes,
            int maxQueuedPerPeer,
            int maxInFlightPerPeer,
            long connectTimeoutMs,
            long reconnectBackoffMs,
            long serverRequestTimeoutMs) {
        public Settings {
            if (maxFrameBytes <= 0
                    || maxQueuedPerPeer <= 0
                    || maxInFlightPerPeer <= 0
                    || connectTimeoutMs <= 0
                    || reconnectBackoffMs <= 0
                    || serverRequestTimeoutMs <= 0) {
                throw new IllegalArgumentException("every limit must be > 0: " + this);
            }
        }

        /** Kafka's {@code socket.request.max.bytes} (100 MiB) and {@code controller.quorum.request.timeout.ms} (2 s). */
        public static Settings defaults() {
            return new Settings(100 * 1024 * 1024, 64, 64, 10_000, 100, 2_000);
        }
    }

    private final RaftRequestDispatcher dispatcher;
    private final RaftPeerClient client;

    public KafkaRaftTransport(
            int localId,
            RaftWireMapping mapping,
            Function<Integer, InetSocketAddress> endpoints,
            Settings settings,
            LongSupplier clockMs) {
        this(localId, mapping, endpoints, settings, clockMs, null);
    }

    /** As above, connecting to the peers with TLS and / or SASL when {@code security} is not null (the controller listener asks). */
    public KafkaRaftTransport(
            int localId,
            RaftWireMapping mapping,
            Function<Integer, InetSocketAddress> endpoints,
            Settings settings,
            LongSupplier clockMs,
            io.varve.broker.network.client.ClientSecurity security) {
        this.dispatcher = new RaftRequestDispatcher(mapping, settings.serverRequestTimeoutMs());
        this.client = new RaftPeerClient(localId, mapping, endpoints, settings, clockMs, security);
    }

    /** What the controller listener's {@code SocketServer} dispatches frames to. */
    public RequestDispatcher dispatcher() {
        return dispatcher;
    }

    /** The same, typed: admin requests from a client listener and the quorum info for ApiVersions/DescribeCluster. */
    public RaftRequestDispatcher requestDispatcher() {
        return dispatcher;
    }

    @Override
    public void start(Predicate<InboundMessage> inbound) {
        dispatcher.start(inbound);
        client.start(inbound);
    }

    @Override
    public void send(OutboundMessage message) {
        if (message.message() instanceof RaftResponse) {
            dispatcher.respond(message);
        } else {
            client.send(message);
        }
    }

    @Override
    public void close() {
        client.close();
    }
}

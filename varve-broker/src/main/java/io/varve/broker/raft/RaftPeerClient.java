package io.varve.broker.raft;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.varve.broker.network.client.ClientSecurity;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.OutboundMessage;
import io.varve.raft.core.message.RaftMessage;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client half of {@link KafkaRaftTransport}: one connection per peer, opened on the first request and
 * again after it drops (not sooner than {@code reconnectBackoffMs} after a failed attempt). Requests are
 * Kafka request frames at the latest version the mapping supports (peers are Varve controllers; there is
 * no ApiVersions exchange yet); responses are paired by the frame's correlation id and handed to the
 * runtime with the core's own correlation id.
 *
 * <p>Never blocks and never queues without bound: while a peer connects at most {@code maxQueuedPerPeer}
 * requests wait, at most {@code maxInFlightPerPeer} await answers, and anything beyond is dropped (the
 * core times its requests out and retries). The in-flight requests of a dropped connection are forgotten.
 */
final class RaftPeerClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RaftPeerClient.class);

    private final int localId;
    private final RaftWireMapping mapping;
    private final Function<Integer, InetSocketAddress> endpoints;
    /** Fed with the leader endpoints fetch responses announce, when the endpoints are an address book. */
    private final RaftAddressBook addresses;

    private final KafkaRaftTransport.Settings settings;
    private final LongSupplier clockMs;
    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    /** Null when the controller listener is PLAINTEXT. */
    private final ClientSecurity security;

    private final Map<Integer, Peer> peers = new ConcurrentHashMap<>();
    private volatile Predicate<InboundMessage> inbound;
    private volatile boolean closed;

    RaftPeerClient(
            int localId,
            RaftWireMapping mapping,
            Function<Integer, InetSocketAddress> endpoints,
            KafkaRaftTransport.Settings settings,
            LongSupplier clockMs,
            ClientSecurity security) {
        this.localId = localId;
        this.security = security;
        this.mapping = mapping;
        this.endpoints = endpoints;
        this.addresses = endpoints instanceof RaftAddressBook book ? book : null;
        this.settings = settings;
        this.clockMs = clockMs;
        this.group = new MultiThreadIoEventLoopGroup(
                1, new DefaultThreadFactory("varve-raft-client-" + localId, true), NioIoHandler.newFactory());
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) settings.connectTimeoutMs());
    }

    void start(Predicate<InboundMessage> inbound) {
        this.inbound = inbound;
    }

    /** Sends a request to its destination, or drops it; never blocks. */
    void send(OutboundMessage request) {
        if (closed) {
            return;
        }
        InetSocketAddress address = endpoints.apply(request.destinationId());
        if (address == null) {
            LOG.debug("No endpoint for replica {}: dropping a {}", request.destinationId(), name(request.message()));
            return;
        }
        peers.computeIfAbsent(request.destinationId(), id -> new Peer(id, address))
                .send(request);
    }

    @Override
    public void close() {
        closed = true;
        peers.values().forEach(Peer::close);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
    }

    private static String name(RaftMessage message) {
        return message.getClass().getSimpleName();
    }

    /** What an answer needs: the core's correlation id and how to read the response. */
    private record InFlight(long coreCorrelationId, ApiKeys api, short version) {}

    /** One peer's connection; every field is guarded by the peer's monitor. */
    private final class Peer {
        private final int id;
        private final InetSocketAddress address;
        private final ArrayDeque<OutboundMessage> waiting = new ArrayDeque<>();
        private final Map<Integer, InFlight> inFlight = new HashMap<>();
        private Channel channel;
        private boolean connecting;
        private long nextConnectAtMs;
        private int nextCorrelationId;

        Peer(int id, InetSocketAddress address) {
            this.id = id;
            this.address = address;
        }

        synchronized void send(OutboundMessage request) {
            if (channel != null && channel.isActive()) {
                write(request);
                return;
            }
            if (waiting.size() < settings.maxQueuedPerPeer()) {
                waiting.add(request);
            }
            if (!connecting && clockMs.getAsLong() >= nextConnectAtMs) {
                connect();
            }
        }

        private void connect() {
            connecting = true;
            ChannelFuture future = bootstrap
                    .clone()
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ClientSecurity.pipeline(
                                    security, ch, address, settings.maxFrameBytes(), "varve-raft-" + localId);
                            ch.pipeline().addLast("responses", new ResponseHandler(Peer.this));
                        }
                    })
                    .connect(address);
            future.addListener(done -> connected(future));
        }

        private synchronized void connected(ChannelFuture future) {
            connecting = false;
            if (!future.isSuccess() || closed) {
                LOG.debug("Could not connect to replica {} at {}: {}", id, address, String.valueOf(future.cause()));
                nextConnectAtMs = clockMs.getAsLong() + settings.reconnectBackoffMs();
                waiting.clear();
                future.channel().close();
                return;
            }
            channel = future.channel();
            LOG.info("Raft client {} connected to replica {} at {}", localId, id, address);
            while (!waiting.isEmpty()) {
                write(waiting.poll());
            }
        }

        private void write(OutboundMessage request) {
            if (inFlight.size() >= settings.maxInFlightPerPeer()) {
                LOG.debug(
                        "{} requests in flight to replica {}: dropping a {}",
                        inFlight.size(),
                        id,
                        name(request.message()));
                return;
            }
            ApiKeys api = RaftApis.apiKeyOf(request.message());
            short version = RaftApis.latestVersion(api);
            int correlationId = nextCorrelationId++;
            ApiMessage body = mapping.toKafka(request.message(), version);
            RequestHeaderData header = new RequestHeaderData()
                    .setRequestApiKey(api.id)
                    .setRequestApiVersion(version)
                    .setCorrelationId(correlationId)
                    .setClientId("varve-raft-" + localId);
            short headerVersion = api.requestHeaderVersion(version);
            ObjectSerializationCache cache = new ObjectSerializationCache();
            int size = header.size(cache, headerVersion) + body.size(cache, version);
            ByteBuffer frame = ByteBuffer.allocate(4 + size).putInt(size);
            ByteBufferAccessor out = new ByteBufferAccessor(frame);
            header.write(out, cache, headerVersion);
            body.write(out, cache, version);
            frame.flip();
            inFlight.put(correlationId, new InFlight(request.correlationId(), api, version));
            channel.writeAndFlush(Unpooled.wrappedBuffer(frame));
        }

        synchronized InFlight answered(int correlationId) {
            return inFlight.remove(correlationId);
        }

        synchronized void dropped(Channel gone) {
            if (channel == gone) {
                channel = null;
                inFlight.clear();
            }
        }

        synchronized void close() {
            waiting.clear();
            if (channel != null) {
                channel.close();
            }
        }
    }

    /** Reads a response frame, maps it and hands it to the runtime. */
    private final class ResponseHandler extends SimpleChannelInboundHandler<ByteBuf> {
        private final Peer peer;

        ResponseHandler(Peer peer) {
            this.peer = peer;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            ByteBuffer bytes = ByteBuffer.allocate(frame.readableBytes());
            frame.readBytes(bytes);
            bytes.flip(); // a heap copy: the records of a fetch answer stay valid after the frame is released
            InFlight request = peer.answered(bytes.getInt(0));
            if (request == null) {
                return; // answers a request of a connection that was dropped and reopened, or one we forgot
            }
            ByteBufferAccessor in = new ByteBufferAccessor(bytes);
            new ResponseHeaderData(in, request.api().responseHeaderVersion(request.version()));
            ApiMessage body = request.api().messageType.newResponse();
            body.read(in, request.version());
            if (body instanceof FetchResponseData fetch && addresses != null) {
                for (FetchResponseData.NodeEndpoint node : fetch.nodeEndpoints()) {
                    addresses.learn(node.nodeId(), node.host(), node.port());
                }
            }
            RaftMessage response = mapping.fromKafka(body, request.version());
            Predicate<InboundMessage> to = inbound;
            if (to != null) {
                to.test(new InboundMessage(peer.id, request.coreCorrelationId(), response));
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            peer.dropped(ctx.channel());
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.warn("Closing the Raft connection to replica {}: {}", peer.id, cause.toString());
            ctx.close();
        }
    }
}

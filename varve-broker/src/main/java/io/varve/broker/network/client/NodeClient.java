package io.varve.broker.network.client;

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
import io.varve.broker.protocol.ClientFrames;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends Kafka requests to other nodes (controllers over their controller listener, brokers over the inter-broker
 * listener) and reads the answers: one connection per address, opened on the first request and again after it drops.
 * Answers are paired by correlation id. Never retries (the caller decides that) and never queues without bound: at
 * most {@code maxInFlight} requests per connection, a request beyond fails at once, as does every request of a
 * connection that drops.
 */
public final class NodeClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodeClient.class);

    /** The connection to a node failed or dropped before the answer came: another attempt may succeed. */
    public static final class DisconnectedException extends RuntimeException {
        public DisconnectedException(String message) {
            super(message);
        }
    }

    private final String clientId;
    private final int maxInFlight;
    private final int maxFrameBytes;
    private final ClientSecurity security;
    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final Map<InetSocketAddress, Connection> connections = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** A client whose single I/O thread is named after {@code threadName}, over PLAINTEXT. */
    public NodeClient(String clientId, String threadName, int maxFrameBytes, int maxInFlight, long connectTimeoutMs) {
        this(clientId, threadName, maxFrameBytes, maxInFlight, connectTimeoutMs, null);
    }

    /** As above, with TLS and / or a SASL login when {@code security} is not null (the target listener asks for them). */
    public NodeClient(
            String clientId,
            String threadName,
            int maxFrameBytes,
            int maxInFlight,
            long connectTimeoutMs,
            ClientSecurity security) {
        this.clientId = clientId;
        this.maxInFlight = maxInFlight;
        this.maxFrameBytes = maxFrameBytes;
        this.security = security;
        this.group = new MultiThreadIoEventLoopGroup(
                1, new DefaultThreadFactory(threadName, true), NioIoHandler.newFactory());
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeoutMs);
    }

    /** A connection's pipeline: TLS first when the listener asks for it, then frames, then its SASL login. */
    private ChannelInitializer<SocketChannel> initializer(InetSocketAddress peer) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ClientSecurity.pipeline(security, ch, peer, maxFrameBytes, clientId);
            }
        };
    }

    /**
     * Sends {@code body} as {@code api} at {@code version}; the future fails with {@link DisconnectedException} when
     * the connection fails or drops, and with a timeout after {@code timeoutMs}.
     */
    public CompletableFuture<ClientFrames.Response> send(
            InetSocketAddress address, ApiKeys api, short version, ApiMessage body, long timeoutMs) {
        CompletableFuture<ClientFrames.Response> answer = new CompletableFuture<>();
        if (closed) {
            answer.completeExceptionally(new DisconnectedException("the node client is closed"));
            return answer;
        }
        connections.computeIfAbsent(address, Connection::new).send(api, version, body, answer);
        return answer.orTimeout(timeoutMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        closed = true;
        connections.values().forEach(c -> c.failAll("the node client is closed"));
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
    }

    private record Pending(ApiKeys api, short version, CompletableFuture<ClientFrames.Response> answer) {}

    private record Queued(
            ApiKeys api, short version, ApiMessage body, CompletableFuture<ClientFrames.Response> answer) {}

    /** One node's connection; every field guarded by its monitor. */
    private final class Connection {
        private final InetSocketAddress address;
        private final Map<Integer, Pending> inFlight = new HashMap<>();
        private final List<Queued> connecting = new ArrayList<>();
        private Channel channel;
        private int nextCorrelationId;

        Connection(InetSocketAddress address) {
            this.address = address;
        }

        synchronized void send(
                ApiKeys api, short version, ApiMessage body, CompletableFuture<ClientFrames.Response> answer) {
            if (inFlight.size() + connecting.size() >= maxInFlight) {
                answer.completeExceptionally(
                        new DisconnectedException(maxInFlight + " requests already wait for the node at " + address));
                return;
            }
            if (channel != null && channel.isActive()) {
                write(api, version, body, answer);
                return;
            }
            connecting.add(new Queued(api, version, body, answer));
            if (connecting.size() == 1) {
                ChannelFuture future =
                        bootstrap.clone().handler(initializer(address)).connect(resolved(address));
                future.addListener(done -> connected(future));
            }
        }

        private void connected(ChannelFuture future) {
            List<CompletableFuture<ClientFrames.Response>> failed = new ArrayList<>();
            String why = "cannot connect to the node at " + address + ": " + future.cause();
            synchronized (this) {
                if (!future.isSuccess() || closed) {
                    connecting.forEach(q -> failed.add(q.answer()));
                    connecting.clear();
                    future.channel().close();
                } else {
                    channel = future.channel();
                    Channel mine = channel;
                    channel.pipeline().addLast("answers", new AnswerHandler(this));
                    channel.closeFuture().addListener(done -> dropped(mine));
                    for (Queued q : connecting) {
                        write(q.api(), q.version(), q.body(), q.answer());
                    }
                    connecting.clear();
                }
            }
            if (!failed.isEmpty()) {
                LOG.debug("{}", why);
                failed.forEach(f -> f.completeExceptionally(new DisconnectedException(why)));
            }
        }

        private void write(
                ApiKeys api, short version, ApiMessage body, CompletableFuture<ClientFrames.Response> answer) {
            int correlationId = nextCorrelationId++;
            ByteBuffer frame;
            try {
                frame = ClientFrames.requestFrame(api, version, correlationId, clientId, body);
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
                return;
            }
            inFlight.put(correlationId, new Pending(api, version, answer));
            answer.whenComplete((r, e) -> forget(correlationId)); // a timed-out request leaves no trace
            channel.writeAndFlush(Unpooled.wrappedBuffer(frame));
        }

        private synchronized void forget(int correlationId) {
            inFlight.remove(correlationId);
        }

        synchronized Pending answered(int correlationId) {
            return inFlight.remove(correlationId);
        }

        private void dropped(Channel gone) {
            List<CompletableFuture<ClientFrames.Response>> failed = new ArrayList<>();
            synchronized (this) {
                if (channel == gone) {
                    channel = null;
                    inFlight.values().forEach(p -> failed.add(p.answer()));
                    inFlight.clear();
                }
            }
            String why = "the connection to the node at " + address + " dropped";
            failed.forEach(f -> f.completeExceptionally(new DisconnectedException(why)));
        }

        void failAll(String why) {
            List<CompletableFuture<ClientFrames.Response>> failed = new ArrayList<>();
            synchronized (this) {
                inFlight.values().forEach(p -> failed.add(p.answer()));
                inFlight.clear();
                connecting.forEach(q -> failed.add(q.answer()));
                connecting.clear();
                if (channel != null) {
                    channel.close();
                }
            }
            failed.forEach(f -> f.completeExceptionally(new DisconnectedException(why)));
        }
    }

    private static InetSocketAddress resolved(InetSocketAddress address) {
        return address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
    }

    /** Reads an answer frame and completes its request. */
    private static final class AnswerHandler extends SimpleChannelInboundHandler<ByteBuf> {
        private final Connection connection;

        AnswerHandler(Connection connection) {
            this.connection = connection;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            ByteBuffer bytes = ByteBuffer.allocate(frame.readableBytes());
            frame.readBytes(bytes);
            bytes.flip();
            Pending pending = connection.answered(ClientFrames.correlationId(bytes));
            if (pending == null) {
                return; // timed out meanwhile
            }
            try {
                pending.answer().complete(ClientFrames.response(pending.api(), pending.version(), bytes));
            } catch (RuntimeException e) {
                pending.answer().completeExceptionally(e);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.warn("Closing the connection to the node at {}: {}", connection.address, cause.toString());
            ctx.close();
        }
    }
}

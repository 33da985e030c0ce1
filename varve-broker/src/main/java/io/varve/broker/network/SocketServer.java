package io.varve.broker.network;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.varve.broker.config.ListenerConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Netty server: one bound socket per listener, a short pipeline per connection (TLS on SSL and SASL_SSL listeners,
 * idle reaper, framer, handler).
 */
public final class SocketServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SocketServer.class);
    /** Requests one connection may have queued before the broker stops reading from it. */
    static final int MAX_QUEUED_REQUESTS_PER_CONNECTION = 64;

    public record Settings(
            int maxFrameBytes,
            long connectionsMaxIdleMs,
            int networkThreads,
            int sendBufferBytes,
            int receiveBufferBytes) {}

    private final Settings settings;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final Class<? extends ServerChannel> channelClass;
    private final Map<String, Channel> boundChannels = new LinkedHashMap<>();
    private final AtomicLong connectionIds = new AtomicLong();
    private volatile ConnectionLimits limits = ConnectionLimits.NONE;
    private volatile ConnectionAdmission rates = ConnectionAdmission.NONE;

    /** Creates the event loops; nothing is bound until {@link #start}. */
    public SocketServer(Settings settings) {
        this(settings, null);
    }

    /**
     * The same, with the network threads' working time (their time not spent waiting for I/O) told to {@code
     * networkBusyNanos}; null measures nothing.
     */
    public SocketServer(Settings settings, java.util.function.LongConsumer networkBusyNanos) {
        this.settings = settings;
        IoHandlerFactory ioFactory;
        if (Epoll.isAvailable()) {
            ioFactory = EpollIoHandler.newFactory();
            channelClass = EpollServerSocketChannel.class;
        } else {
            ioFactory = NioIoHandler.newFactory();
            channelClass = NioServerSocketChannel.class;
        }
        bossGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("varve-acceptor", true), ioFactory);
        workerGroup = new MultiThreadIoEventLoopGroup(
                settings.networkThreads(),
                new DefaultThreadFactory("varve-network", true),
                networkBusyNanos == null ? ioFactory : new BusyTimeIoHandlers(ioFactory, networkBusyNanos));
    }

    /** Sets the connection limits; before {@link #start}. */
    public void limitConnections(ConnectionLimits connectionLimits) {
        this.limits = connectionLimits;
    }

    /** Sets the connection creation rates; before {@link #start}. */
    public void limitConnectionRates(ConnectionAdmission connectionRates) {
        this.rates = connectionRates;
    }

    /**
     * A new connection over a creation rate: over the listener's it is served once the rate allows (Kafka's acceptor
     * waits the same way), over its address's quota it is closed after the throttle time (so a client that reconnects
     * at once does not spin). Nothing is read from it meanwhile.
     */
    private void paceOrRefuse(SocketChannel ch, String listenerName) {
        InetAddress address = ch.remoteAddress().getAddress();
        ConnectionAdmission.Decision decision = rates.admit(listenerName, address);
        if (decision.delayMs() <= 0 && !decision.close()) {
            return;
        }
        ch.config().setAutoRead(false);
        if (decision.close()) {
            log.debug(
                    "Closing a new connection from {} in {} ms: over its connection_creation_rate",
                    address,
                    decision.delayMs());
            ch.eventLoop().schedule(() -> ch.close(), decision.delayMs(), TimeUnit.MILLISECONDS);
        } else {
            ch.eventLoop().schedule(() -> ch.config().setAutoRead(true), decision.delayMs(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Counts a new connection, or refuses it (closed at once) when its address or the broker is at its limit. Kafka's
     * acceptor instead waits for a free slot at {@code max.connections}; pausing Netty's accept loop did not stop
     * accepts here, so the excess is closed: the client retries, nothing is held open past the limit.
     */
    private boolean admit(SocketChannel ch) {
        InetAddress address = ch.remoteAddress().getAddress();
        if (!limits.tryAcquire(address)) {
            log.warn(
                    "Closing a new connection from {}: {}",
                    address,
                    limits.addressAtLimit(address)
                            ? "it holds max.connections.per.ip connections"
                            : "the broker holds max.connections connections");
            ch.close();
            return false;
        }
        ch.closeFuture().addListener(f -> limits.release(address));
        return true;
    }

    /** Binds every listener as PLAINTEXT; throws if one cannot be bound. */
    public void start(List<ListenerConfig> listeners, RequestDispatcher dispatcher) throws InterruptedException {
        start(listeners, dispatcher, name -> ListenerFront.PLAINTEXT);
    }

    /** Binds every listener with its front (TLS or not); throws if one cannot be bound. */
    public void start(
            List<ListenerConfig> listeners, RequestDispatcher dispatcher, Function<String, ListenerFront> fronts)
            throws InterruptedException {
        for (ListenerConfig listener : listeners) {
            ListenerFront front = fronts.apply(listener.name());
            ServerBootstrap bootstrap = new ServerBootstrap()
                    .group(bossGroup, workerGroup)
                    .channel(channelClass)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (!admit(ch)) {
                                return;
                            }
                            paceOrRefuse(ch, listener.name());
                            if (settings.sendBufferBytes() > 0) {
                                ch.config().setSendBufferSize(settings.sendBufferBytes());
                            }
                            if (settings.receiveBufferBytes() > 0) {
                                ch.config().setReceiveBufferSize(settings.receiveBufferBytes());
                            }
                            ConnectionPipeline.install(
                                    ch,
                                    settings,
                                    front,
                                    dispatcher,
                                    listener.name(),
                                    connectionIds.incrementAndGet(),
                                    MAX_QUEUED_REQUESTS_PER_CONNECTION);
                        }
                    });
            InetSocketAddress address = listener.host().isEmpty()
                    ? new InetSocketAddress(listener.port())
                    : new InetSocketAddress(listener.host(), listener.port());
            Channel channel = bootstrap.bind(address).sync().channel();
            boundChannels.put(listener.name(), channel);
            log.info("Listening for {} ({}) on {}", listener.name(), front.protocol(), channel.localAddress());
        }
    }

    /** The port a listener is bound to (useful when configured with port 0). */
    public int boundPort(String listenerName) {
        Channel channel = boundChannels.get(listenerName);
        if (channel == null) {
            throw new IllegalArgumentException("No listener named " + listenerName);
        }
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        List<Channel> channels = new ArrayList<>(boundChannels.values());
        for (Channel channel : channels) {
            channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
        workerGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
}

package io.varve.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.varve.broker.security.ConnectionAuthentication;
import io.varve.security.Principal;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One per connection. Requests of a connection are handled one at a time, in arrival order, as Kafka does:
 * pipelined produce requests must be appended in the order they were sent. Further frames wait in a bounded
 * queue; reading pauses while it is full or the socket cannot take more bytes, so a slow client only slows itself.
 *
 * <p>A frame stays in the pooled (direct) buffer the framer produced: the request is parsed from it and produced
 * record batches are appended to the log straight from it, so a request's bytes are never copied onto the heap
 * (copying every frame made the heap churn, and the JVM grow, with the produce rate). The buffer is released
 * exactly once: when the request's response is complete, or when the connection drops with the frame queued.
 *
 * <p>On a TLS listener the connection's principal comes from the client certificate once the handshake completes
 * (a subject no {@code ssl.principal.mapping.rules} rule matches closes the connection), and segment file regions are
 * read into buffers: the cipher needs the bytes, sendfile cannot apply.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

    private final RequestDispatcher dispatcher;
    private final String listenerName;
    private final long connectionId;
    private final int maxQueuedRequests;
    private final ListenerFront front;
    /** Frames received but not yet dispatched. Touched only on this channel's event loop. */
    private final ArrayDeque<ByteBuf> queued = new ArrayDeque<>();
    /** The frame of the request being handled; released when its response is complete. */
    private ByteBuf inProgress;

    private ConnectionInfo info;

    /** Set while a throttled client's connection is muted: nothing is read or dispatched until it clears. */
    private boolean muted;

    /** Whether the TLS handshake's principal has been taken (TLS listeners only). */
    private boolean tlsPrincipalTaken;

    ConnectionHandler(RequestDispatcher dispatcher, String listenerName, long connectionId, int maxQueuedRequests) {
        this(dispatcher, listenerName, connectionId, maxQueuedRequests, ListenerFront.PLAINTEXT);
    }

    ConnectionHandler(
            RequestDispatcher dispatcher,
            String listenerName,
            long connectionId,
            int maxQueuedRequests,
            ListenerFront front) {
        this.dispatcher = dispatcher;
        this.listenerName = listenerName;
        this.connectionId = connectionId;
        this.maxQueuedRequests = maxQueuedRequests;
        this.front = front;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        SocketAddress remote = ctx.channel().remoteAddress();
        InetSocketAddress address = remote instanceof InetSocketAddress inet
                ? inet
                : InetSocketAddress.createUnresolved(String.valueOf(remote), 0);
        info = new ConnectionInfo(listenerName, address, connectionId, new ConnectionAuthentication(front.protocol()));
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        if (!ctx.channel().isActive()) {
            frame.release();
            return;
        }
        if (front.tls() && !tlsPrincipalTaken && !takeTlsPrincipal(ctx)) {
            frame.release();
            return;
        }
        queued.add(frame);
        updateAutoRead(ctx);
        if (inProgress == null && !muted) {
            dispatchNext(ctx);
        }
    }

    private void dispatchNext(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive()) {
            releaseQueued();
            return;
        }
        ByteBuf frame = queued.poll();
        if (frame == null) {
            return;
        }
        inProgress = frame;
        CompletableFuture<ResponseFrame> response;
        try {
            // A view of the frame, not a copy; nothing may keep it past the response (see the class comment).
            ByteBuffer view = frame.nioBuffer(frame.readerIndex(), frame.readableBytes());
            response = dispatcher.dispatch(view, info);
        } catch (RuntimeException e) {
            response = CompletableFuture.failedFuture(e);
        }
        response.whenComplete((r, e) -> ctx.executor().execute(() -> completed(ctx, r, e)));
    }

    private void completed(ChannelHandlerContext ctx, ResponseFrame response, Throwable error) {
        ByteBuf done = inProgress;
        inProgress = null;
        done.release();
        if (error != null) {
            log.warn("Closing connection {} from {}: {}", connectionId, info.remoteAddress(), rootMessage(error));
            releaseQueued();
            ctx.close();
            return;
        }
        if (response != null && ctx.channel().isActive()) {
            for (ResponseFrame.Part part : response.parts()) {
                if (part instanceof ResponseFrame.Bytes bytes) {
                    ctx.write(Unpooled.wrappedBuffer(bytes.buffer()));
                } else if (part instanceof ResponseFrame.FileRegionPart file) {
                    if (front.tls()) {
                        ByteBuf read = readRegion(ctx, file);
                        if (read == null) {
                            releaseQueued();
                            ctx.close();
                            return;
                        }
                        ctx.write(read);
                    } else {
                        ctx.write(new SharedFileRegion(file.channel(), file.position(), file.sizeBytes()));
                    }
                }
            }
            if (response.onSent() != null) {
                // an empty buffer's write completes once every byte written before it is on the socket
                Runnable sent = response.onSent();
                ctx.write(Unpooled.EMPTY_BUFFER).addListener(f -> sent.run());
            }
            if (response.closeAfterWrite()) {
                releaseQueued();
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            ctx.flush();
            if (response.muteMs() > 0) {
                mute(ctx, response.muteMs());
                return;
            }
        } else if (response != null && response.closeAfterWrite()) {
            releaseQueued();
            ctx.close();
            return;
        }
        updateAutoRead(ctx);
        dispatchNext(ctx);
    }

    /**
     * Stops reading from the channel for {@code muteMs}, as Kafka mutes a throttled client after sending its response:
     * a client that ignores the response's throttle time gets no further request read before it is over.
     */
    private void mute(ChannelHandlerContext ctx, long muteMs) {
        muted = true;
        updateAutoRead(ctx);
        ctx.executor()
                .schedule(
                        () -> {
                            muted = false;
                            updateAutoRead(ctx);
                            if (inProgress == null) {
                                dispatchNext(ctx);
                            }
                        },
                        muteMs,
                        java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /**
     * A file region's bytes in a pooled buffer, for the cipher. Page-cache reads on the event loop, as the plaintext
     * path's sendfile is; null (after one log line) if the file ends early.
     */
    private ByteBuf readRegion(ChannelHandlerContext ctx, ResponseFrame.FileRegionPart file) {
        ByteBuf buffer = ctx.alloc().directBuffer(file.sizeBytes(), file.sizeBytes());
        try {
            while (buffer.isWritable()) {
                int n = buffer.writeBytes(
                        file.channel(), file.position() + buffer.writerIndex(), buffer.writableBytes());
                if (n < 0) {
                    throw new IOException("segment file ended " + buffer.writableBytes() + " bytes early");
                }
            }
            return buffer;
        } catch (IOException e) {
            buffer.release();
            log.warn(
                    "Closing connection {} from {}: reading a fetch response failed: {}",
                    connectionId,
                    info.remoteAddress(),
                    e.getMessage());
            return null;
        }
    }

    /**
     * Sets the connection's principal from the client certificate (anonymous without one); false, after closing the
     * connection, when no mapping rule matches the certificate's subject.
     */
    private boolean takeTlsPrincipal(ChannelHandlerContext ctx) {
        tlsPrincipalTaken = true;
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        Certificate[] chain;
        try {
            chain = ssl.engine().getSession().getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return true; // no client certificate: ssl.client.auth is none or requested, the principal stays anonymous
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate certificate)) {
            return true;
        }
        String subject = certificate.getSubjectX500Principal().getName();
        Optional<String> name = front.principalRules().map(subject);
        if (name.isEmpty()) {
            log.warn(
                    "Closing connection {} from {} on listener {}: no ssl.principal.mapping.rules rule matches the"
                            + " client certificate's subject {}",
                    connectionId,
                    info.remoteAddress(),
                    listenerName,
                    subject);
            releaseQueued();
            ctx.close();
            return false;
        }
        info.authentication().tlsAuthenticated(Principal.user(name.get()));
        return true;
    }

    /** Frames that will never be handled: the connection is gone or failing. */
    private void releaseQueued() {
        ByteBuf frame;
        while ((frame = queued.poll()) != null) {
            frame.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        releaseQueued();
        if (info != null) {
            dispatcher.connectionClosed(info);
        }
        super.channelInactive(ctx);
    }

    private void updateAutoRead(ChannelHandlerContext ctx) {
        boolean shouldRead =
                !muted && queued.size() < maxQueuedRequests && ctx.channel().isWritable();
        if (ctx.channel().config().isAutoRead() != shouldRead) {
            ctx.channel().config().setAutoRead(shouldRead);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        updateAutoRead(ctx);
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent handshake) {
            if (!handshake.isSuccess()) {
                // one line per refused handshake: untrusted or missing certificate, plaintext on a TLS port
                log.warn(
                        "TLS handshake with {} on listener {} failed: {}",
                        remote(ctx),
                        listenerName,
                        rootMessage(handshake.cause()));
                releaseQueued();
                ctx.close();
            } else if (!tlsPrincipalTaken) {
                takeTlsPrincipal(ctx);
            }
            return;
        }
        if (evt instanceof IdleStateEvent) {
            log.debug("Closing idle connection {} from {}", connectionId, info.remoteAddress());
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (front.tls() && cause instanceof io.netty.handler.codec.DecoderException && !tlsPrincipalTaken) {
            // the handshake's failure is logged once, with its reason, by the completion event
            releaseQueued();
            ctx.close();
        } else if (cause instanceof IOException) {
            log.debug("Connection {} from {} failed: {}", connectionId, remote(ctx), cause.getMessage());
        } else if (cause instanceof TooLongFrameException || cause.getCause() instanceof TooLongFrameException) {
            log.warn(
                    "Closing connection {} from {}: request frame larger than socket.request.max.bytes ({})",
                    connectionId,
                    remote(ctx),
                    cause.getMessage());
        } else {
            log.warn("Closing connection {} from {}: {}", connectionId, remote(ctx), cause.toString());
        }
        releaseQueued();
        ctx.close();
    }

    private Object remote(ChannelHandlerContext ctx) {
        return info != null ? info.remoteAddress() : ctx.channel().remoteAddress();
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t != t.getCause()) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }
}

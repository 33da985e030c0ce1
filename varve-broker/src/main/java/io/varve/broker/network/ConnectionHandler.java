package io.varve.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
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
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

    private final RequestDispatcher dispatcher;
    private final String listenerName;
    private final long connectionId;
    private final int maxQueuedRequests;
    /** Frames received but not yet dispatched. Touched only on this channel's event loop. */
    private final ArrayDeque<ByteBuf> queued = new ArrayDeque<>();
    /** The frame of the request being handled; released when its response is complete. */
    private ByteBuf inProgress;

    private ConnectionInfo info;

    ConnectionHandler(RequestDispatcher dispatcher, String listenerName, long connectionId, int maxQueuedRequests) {
        this.dispatcher = dispatcher;
        this.listenerName = listenerName;
        this.connectionId = connectionId;
        this.maxQueuedRequests = maxQueuedRequests;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        SocketAddress remote = ctx.channel().remoteAddress();
        InetSocketAddress address = remote instanceof InetSocketAddress inet
                ? inet
                : InetSocketAddress.createUnresolved(String.valueOf(remote), 0);
        info = new ConnectionInfo(listenerName, address, connectionId);
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        if (!ctx.channel().isActive()) {
            frame.release();
            return;
        }
        queued.add(frame);
        updateAutoRead(ctx);
        if (inProgress == null) {
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
                    ctx.write(new SharedFileRegion(file.channel(), file.position(), file.sizeBytes()));
                }
            }
            ctx.flush();
        }
        updateAutoRead(ctx);
        dispatchNext(ctx);
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
        boolean shouldRead = queued.size() < maxQueuedRequests && ctx.channel().isWritable();
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
        if (evt instanceof IdleStateEvent) {
            log.debug("Closing idle connection {} from {}", connectionId, info.remoteAddress());
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
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

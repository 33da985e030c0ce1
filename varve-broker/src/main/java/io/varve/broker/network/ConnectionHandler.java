package io.varve.broker.network;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One per connection. Requests of a connection are handled one at a time, in arrival order, as Kafka does:
 * pipelined produce requests must be appended in the order they were sent. Further frames wait in a bounded
 * queue; reading pauses while it is full or the socket cannot take more bytes, so a slow client only slows itself.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

    private final RequestDispatcher dispatcher;
    private final String listenerName;
    private final long connectionId;
    private final int maxQueuedRequests;
    /** Frames received but not yet dispatched. Touched only on this channel's event loop. */
    private final ArrayDeque<ByteBuffer> queued = new ArrayDeque<>();
    private boolean requestInProgress;
    private ConnectionInfo info;

    ConnectionHandler(RequestDispatcher dispatcher, String listenerName, long connectionId, int maxQueuedRequests) {
        this.dispatcher = dispatcher;
        this.listenerName = listenerName;
        this.connectionId = connectionId;
        this.maxQueuedRequests = maxQueuedRequests;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        info = new ConnectionInfo(listenerName, (InetSocketAddress) ctx.channel().remoteAddress(), connectionId);
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuffer frame;
        try {
            ByteBuf buf = (ByteBuf) msg;
            frame = ByteBuffer.allocate(buf.readableBytes());
            buf.readBytes(frame);
            frame.flip();
        } finally {
            ReferenceCountUtil.release(msg);
        }
        queued.add(frame);
        updateAutoRead(ctx);
        if (!requestInProgress) {
            dispatchNext(ctx);
        }
    }

    private void dispatchNext(ChannelHandlerContext ctx) {
        ByteBuffer frame = queued.poll();
        if (frame == null || !ctx.channel().isActive()) {
            return;
        }
        requestInProgress = true;
        CompletableFuture<ResponseFrame> response;
        try {
            response = dispatcher.dispatch(frame, info);
        } catch (RuntimeException e) {
            response = CompletableFuture.failedFuture(e);
        }
        response.whenComplete((r, e) -> ctx.executor().execute(() -> completed(ctx, r, e)));
    }

    private void completed(ChannelHandlerContext ctx, ResponseFrame response, Throwable error) {
        requestInProgress = false;
        if (error != null) {
            log.warn("Closing connection {} from {}: {}", connectionId, info.remoteAddress(), rootMessage(error));
            queued.clear();
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
            log.warn("Closing connection {} from {}: request frame larger than socket.request.max.bytes ({})",
                    connectionId, remote(ctx), cause.getMessage());
        } else {
            log.warn("Closing connection {} from {}: {}", connectionId, remote(ctx), cause.toString());
        }
        queued.clear();
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

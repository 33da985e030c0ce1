package io.varve.broker.network;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

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
 * One per connection. Requests may be processed concurrently, but responses leave in request order.
 * Reading pauses while too many requests are in flight or the socket cannot take more bytes, so a slow
 * client only slows itself.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

    private final RequestDispatcher dispatcher;
    private final String listenerName;
    private final long connectionId;
    private final int maxInflightRequests;
    /** Touched only on this channel's event loop. */
    private final ArrayDeque<CompletableFuture<ByteBuffer>> inflight = new ArrayDeque<>();
    private ConnectionInfo info;

    ConnectionHandler(RequestDispatcher dispatcher, String listenerName, long connectionId, int maxInflightRequests) {
        this.dispatcher = dispatcher;
        this.listenerName = listenerName;
        this.connectionId = connectionId;
        this.maxInflightRequests = maxInflightRequests;
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
        CompletableFuture<ByteBuffer> response;
        try {
            response = dispatcher.dispatch(frame, info);
        } catch (RuntimeException e) {
            response = CompletableFuture.failedFuture(e);
        }
        inflight.add(response);
        updateAutoRead(ctx);
        response.whenComplete((r, e) -> ctx.executor().execute(() -> writeCompleted(ctx)));
    }

    /** Writes every completed response at the head of the queue, in order. */
    private void writeCompleted(ChannelHandlerContext ctx) {
        boolean wrote = false;
        while (!inflight.isEmpty() && inflight.peek().isDone()) {
            CompletableFuture<ByteBuffer> head = inflight.poll();
            ByteBuffer response;
            try {
                response = head.join();
            } catch (CompletionException e) {
                log.warn("Closing connection {} from {}: {}", connectionId, info.remoteAddress(), rootMessage(e));
                inflight.clear();
                ctx.close();
                return;
            }
            if (response != null && ctx.channel().isActive()) {
                ctx.write(Unpooled.wrappedBuffer(response));
                wrote = true;
            }
        }
        if (wrote) {
            ctx.flush();
        }
        updateAutoRead(ctx);
    }

    private void updateAutoRead(ChannelHandlerContext ctx) {
        boolean shouldRead = inflight.size() < maxInflightRequests && ctx.channel().isWritable();
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
        inflight.clear();
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

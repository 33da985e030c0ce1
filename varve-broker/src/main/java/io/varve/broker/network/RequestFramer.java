package io.varve.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;

/**
 * Splits the byte stream into request frames: a 4-byte big-endian size, then that many bytes. Once a frame's size
 * is known its buffer is allocated whole, and each socket read is copied into it once — a generic
 * cumulating decoder would copy a 1 MiB produce request several times while growing its buffer. A frame larger
 * than {@code maxFrameBytes} (socket.request.max.bytes) or with a negative size fails the connection with
 * {@link TooLongFrameException} before anything is allocated for it.
 */
final class RequestFramer extends ChannelInboundHandlerAdapter {
    private static final int SIZE_BYTES = 4;

    private final int maxFrameBytes;
    /** The size field while it is incomplete (a read may end inside it). */
    private int sizeBytesRead;

    private int size;
    /** The frame being filled, or null between frames. */
    private ByteBuf frame;

    private boolean failed;

    RequestFramer(int maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            while (in.isReadable() && !failed) {
                if (frame == null) {
                    readSize(ctx, in);
                } else {
                    int n = Math.min(in.readableBytes(), frame.writableBytes());
                    frame.writeBytes(in, n);
                    if (!frame.isWritable()) {
                        ByteBuf complete = frame;
                        frame = null;
                        ctx.fireChannelRead(complete);
                    }
                }
            }
        } finally {
            in.release();
        }
    }

    private void readSize(ChannelHandlerContext ctx, ByteBuf in) {
        while (sizeBytesRead < SIZE_BYTES && in.isReadable()) {
            size = (size << 8) | in.readUnsignedByte();
            sizeBytesRead++;
        }
        if (sizeBytesRead < SIZE_BYTES) {
            return;
        }
        int frameBytes = size;
        sizeBytesRead = 0;
        size = 0;
        if (frameBytes < 0 || frameBytes > maxFrameBytes) {
            failed = true;
            ctx.fireExceptionCaught(new TooLongFrameException(
                    "frame of " + Integer.toUnsignedString(frameBytes) + " bytes, the limit is " + maxFrameBytes));
            return;
        }
        frame = ctx.alloc().directBuffer(frameBytes, frameBytes);
        if (frameBytes == 0) {
            ByteBuf empty = frame;
            frame = null;
            ctx.fireChannelRead(empty);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        releaseFrame();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseFrame();
    }

    private void releaseFrame() {
        if (frame != null) {
            frame.release();
            frame = null;
        }
    }
}

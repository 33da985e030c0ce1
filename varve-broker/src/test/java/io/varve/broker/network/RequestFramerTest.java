package io.varve.broker.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestFramerTest {

    private static byte[] stream(int... frameSizes) {
        ByteBuf out = Unpooled.buffer();
        int fill = 0;
        for (int size : frameSizes) {
            out.writeInt(size);
            for (int i = 0; i < size; i++) {
                out.writeByte(fill++);
            }
        }
        byte[] bytes = new byte[out.readableBytes()];
        out.readBytes(bytes);
        return bytes;
    }

    private static List<byte[]> drain(EmbeddedChannel channel) {
        List<byte[]> frames = new ArrayList<>();
        ByteBuf frame;
        while ((frame = channel.readInbound()) != null) {
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            frame.release();
            frames.add(bytes);
        }
        return frames;
    }

    @Test
    void framesCutAtEveryPossiblePointComeOutWholeAndInOrder() {
        byte[] bytes = stream(5, 0, 300, 1);
        List<byte[]> expected = null;
        for (int cut = 0; cut <= bytes.length; cut++) {
            EmbeddedChannel channel = new EmbeddedChannel(new RequestFramer(1024));
            channel.writeInbound(Unpooled.wrappedBuffer(bytes, 0, cut));
            channel.writeInbound(Unpooled.wrappedBuffer(bytes, cut, bytes.length - cut));
            List<byte[]> frames = drain(channel);
            assertThat(frames).extracting(f -> f.length).containsExactly(5, 0, 300, 1);
            if (expected == null) {
                expected = frames;
            } else {
                for (int i = 0; i < frames.size(); i++) {
                    assertThat(frames.get(i)).isEqualTo(expected.get(i));
                }
            }
            assertThat(channel.finish()).isFalse();
        }
        assertThat(expected.get(2)[0]).isEqualTo((byte) 5);
    }

    @Test
    void aByteAtATimeStillYieldsTheFrames() {
        byte[] bytes = stream(3, 7);
        EmbeddedChannel channel = new EmbeddedChannel(new RequestFramer(1024));
        for (byte b : bytes) {
            channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        assertThat(drain(channel)).extracting(f -> f.length).containsExactly(3, 7);
    }

    @Test
    void aFrameOverTheLimitOrWithANegativeSizeFailsTheConnectionBeforeAllocating() {
        EmbeddedChannel tooLong = new EmbeddedChannel(new RequestFramer(1024));
        assertThatThrownBy(() -> tooLong.writeInbound(Unpooled.wrappedBuffer(stream(1025))))
                .isInstanceOf(TooLongFrameException.class)
                .hasMessageContaining("1025");
        EmbeddedChannel negative = new EmbeddedChannel(new RequestFramer(1024));
        assertThatThrownBy(() -> negative.writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte) 0xff, 0, 0, 0})))
                .isInstanceOf(TooLongFrameException.class);
    }

    @Test
    void aPartlyReceivedFrameIsReleasedWhenTheConnectionCloses() {
        List<ByteBuf> allocated = new ArrayList<>();
        EmbeddedChannel channel = new EmbeddedChannel(new RequestFramer(1024));
        channel.config().setAllocator(new AbstractByteBufAllocator() {
            @Override
            protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
                throw new AssertionError("frames are direct");
            }

            @Override
            protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
                ByteBuf buf = Unpooled.directBuffer(initialCapacity, maxCapacity);
                allocated.add(buf);
                return buf;
            }

            @Override
            public boolean isDirectBufferPooled() {
                return false;
            }
        });
        channel.writeInbound(Unpooled.wrappedBuffer(stream(100), 0, 50));
        assertThat(allocated).hasSize(1);
        assertThat(allocated.get(0).refCnt()).isEqualTo(1);
        channel.close();
        assertThat(allocated.get(0).refCnt()).isZero();
    }
}

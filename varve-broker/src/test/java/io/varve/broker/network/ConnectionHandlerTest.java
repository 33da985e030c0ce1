package io.varve.broker.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The handler's contract with the pooled frames the framer hands it: in order, one at a time, released once. */
class ConnectionHandlerTest {

    /** Records what it was given and completes each request when the test says so. */
    private static final class PendingDispatcher implements RequestDispatcher {
        final List<CompletableFuture<ResponseFrame>> pending = new ArrayList<>();
        final List<Integer> firstBytes = new ArrayList<>();

        @Override
        public CompletableFuture<ResponseFrame> dispatch(ByteBuffer frame, ConnectionInfo connection) {
            firstBytes.add((int) frame.get(frame.position()));
            CompletableFuture<ResponseFrame> f = new CompletableFuture<>();
            pending.add(f);
            return f;
        }
    }

    private static ByteBuf frame(int firstByte) {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        buf.writeByte(firstByte).writeZero(63);
        return buf;
    }

    @Test
    void framesAreDispatchedInOrderOneAtATimeAndReleasedWhenTheirResponseIsComplete() {
        PendingDispatcher dispatcher = new PendingDispatcher();
        EmbeddedChannel channel = new EmbeddedChannel(new ConnectionHandler(dispatcher, "PLAINTEXT", 1, 16));
        ByteBuf first = frame(1);
        ByteBuf second = frame(2);
        channel.writeInbound(first);
        channel.writeInbound(second);

        assertThat(dispatcher.firstBytes).containsExactly(1);
        assertThat(first.refCnt()).isEqualTo(1);

        dispatcher.pending.get(0).complete(null);
        channel.runPendingTasks();
        assertThat(first.refCnt()).isZero();
        assertThat(dispatcher.firstBytes).containsExactly(1, 2);
        assertThat(second.refCnt()).isEqualTo(1);

        dispatcher.pending.get(1).completeExceptionally(new IllegalStateException("handler failed"));
        channel.runPendingTasks();
        assertThat(second.refCnt()).isZero();
        assertThat(channel.isActive()).isFalse();
        channel.finishAndReleaseAll();
    }

    @Test
    void queuedFramesAreReleasedWhenTheConnectionCloses() {
        PendingDispatcher dispatcher = new PendingDispatcher();
        EmbeddedChannel channel = new EmbeddedChannel(new ConnectionHandler(dispatcher, "PLAINTEXT", 1, 16));
        ByteBuf inFlight = frame(1);
        ByteBuf queued = frame(2);
        channel.writeInbound(inFlight);
        channel.writeInbound(queued);

        channel.close();
        assertThat(queued.refCnt()).isZero();
        assertThat(inFlight.refCnt()).isEqualTo(1);

        // The in-flight request still completes (its handler may be running): only then is its frame released.
        dispatcher.pending.get(0).complete(null);
        channel.runPendingTasks();
        assertThat(inFlight.refCnt()).isZero();
        assertThat(dispatcher.firstBytes).containsExactly(1);
    }

    @Test
    void aThrottledResponseMutesTheConnectionForItsThrottleTime() {
        PendingDispatcher dispatcher = new PendingDispatcher();
        EmbeddedChannel channel = new EmbeddedChannel(new ConnectionHandler(dispatcher, "PLAINTEXT", 1, 16));
        channel.freezeTime();
        channel.writeInbound(frame(1));
        channel.writeInbound(frame(2));

        dispatcher
                .pending
                .get(0)
                .complete(ResponseFrame.of(ByteBuffer.allocate(4)).thenMuteFor(500));
        channel.runPendingTasks();
        assertThat((ByteBuf) channel.readOutbound()).satisfies(ByteBuf::release);
        assertThat(channel.config().isAutoRead()).as("reading while muted").isFalse();
        assertThat(dispatcher.firstBytes).as("dispatched while muted").containsExactly(1);

        channel.advanceTimeBy(499, java.util.concurrent.TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(dispatcher.firstBytes).containsExactly(1);

        channel.advanceTimeBy(1, java.util.concurrent.TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.config().isAutoRead()).isTrue();
        assertThat(dispatcher.firstBytes).containsExactly(1, 2);
        dispatcher.pending.get(1).complete(null);
        channel.runPendingTasks();
        channel.finishAndReleaseAll();
    }
}

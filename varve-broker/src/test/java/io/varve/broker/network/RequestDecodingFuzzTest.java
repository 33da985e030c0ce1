package io.varve.broker.network;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.varve.broker.protocol.ErrorResponses;
import io.varve.broker.protocol.InvalidFrameException;
import io.varve.broker.protocol.RequestParser;
import io.varve.broker.protocol.ResponseWriter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.errors.IllegalSaslStateException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * The request decoder fed any byte stream a client can send: the framer ({@link RequestFramer}) cuts exactly the
 * frames the size fields announce, in order, or fails the connection with {@link TooLongFrameException}; each frame's
 * header and body parse ({@link RequestParser}) or fail with {@link InvalidFrameException} and nothing else; and a
 * parsed request's error response — what an unauthenticated SASL connection gets for a request out of turn, and what
 * a failed handler answers — can be written. Covers every API and version kafka-clients 4.4 knows, a superset of what
 * Varve advertises; half of the runs build frames with a valid API key and version, so the fuzzer spends its time in
 * the bodies rather than on unknown keys.
 *
 * <p>Seeds: {@code src/test/resources/io/varve/broker/network/RequestDecodingFuzzTestInputs/}; {@code JAZZER_FUZZ=1}
 * fuzzes (README: Fuzzing).
 */
class RequestDecodingFuzzTest {
    /** Small, so a fuzzed size field never asks for much memory; the check is the same at any limit. */
    private static final int MAX_FRAME_BYTES = 64 * 1024;

    /** Every API with at least one version (kafka-clients keeps the ids of a few that have none left). */
    private static final ApiKeys[] APIS = Arrays.stream(ApiKeys.values())
            .filter(api -> api.latestVersion(true) >= api.oldestVersion())
            .toArray(ApiKeys[]::new);

    @DictionaryEntries({"\u0000\u0000\u0000\u0000", "\u0000\u0001", "\u00ff\u00ff"})
    @FuzzTest(maxDuration = "20s")
    void anyByteStreamIsCutIntoTheAnnouncedFramesAndEachParsesOrFailsAsAnInvalidFrame(FuzzedDataProvider data) {
        int chunkBytes = data.consumeInt(1, 512);
        byte[] stream = data.consumeBoolean() ? validHeaders(data) : data.consumeRemainingAsBytes();

        List<ByteBuf> frames = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        EmbeddedChannel channel =
                new EmbeddedChannel(new RequestFramer(MAX_FRAME_BYTES), new Collector(frames, failures));
        for (int at = 0; at < stream.length && channel.isActive(); at += chunkBytes) {
            int n = Math.min(chunkBytes, stream.length - at);
            channel.writeInbound(Unpooled.wrappedBuffer(stream, at, n));
        }
        channel.finishAndReleaseAll();

        Expected expected = cut(stream);
        assertThat(frames).hasSize(expected.frames.size());
        for (int i = 0; i < frames.size(); i++) {
            ByteBuf frame = frames.get(i);
            assertThat(ByteBufUtil.getBytes(frame)).isEqualTo(expected.frames.get(i));
            decode(frame.nioBuffer());
            frame.release();
        }
        if (expected.tooLong) {
            assertThat(failures).singleElement().isInstanceOf(TooLongFrameException.class);
        } else {
            assertThat(failures).isEmpty();
        }
    }

    /** 1-3 frames whose API key and version are ones the protocol classes know, the rest from the fuzzer. */
    private static byte[] validHeaders(FuzzedDataProvider data) {
        int count = data.consumeInt(1, 3);
        ByteBuffer out = ByteBuffer.allocate(count * (8 + 4096));
        for (int i = 0; i < count; i++) {
            ApiKeys api = data.pickValue(APIS);
            short version = data.consumeBoolean()
                    ? (short) data.consumeInt(api.oldestVersion(), api.latestVersion(true))
                    : data.consumeShort();
            byte[] rest = data.consumeBytes(data.consumeInt(0, 4096));
            out.putInt(4 + rest.length).putShort(api.id).putShort(version).put(rest);
        }
        byte[] stream = new byte[out.position()];
        out.flip().get(stream);
        return stream;
    }

    /**
     * What the dispatcher does with a frame up to the handler: the header, then the body of a version the protocol
     * classes know, then (as for a SASL connection's request out of turn) its error response.
     */
    private static void decode(ByteBuffer frame) {
        RequestParser.Parsed parsed;
        try {
            parsed = RequestParser.parseHeader(frame);
        } catch (InvalidFrameException e) {
            return;
        }
        ApiKeys api = parsed.apiKey();
        short version = parsed.apiVersion();
        if (version < api.oldestVersion() || version > api.latestVersion(true)) {
            return; // the dispatcher closes the connection before reading the body
        }
        AbstractRequest body;
        try {
            body = RequestParser.parseBody(api, version, parsed.body());
        } catch (InvalidFrameException e) {
            return;
        }
        assertThat(body.apiKey()).isEqualTo(api);
        ApiMessage refused;
        try {
            refused = ErrorResponses.of(body, new IllegalSaslStateException("fuzz"));
        } catch (InvalidFrameException e) {
            return; // unanswerable: the connection is closed
        }
        ResponseWriter.write(api, version, parsed.header().correlationId(), refused);
    }

    /** The frames a correct framer cuts from {@code stream}, and whether it must fail on a size field. */
    private record Expected(List<byte[]> frames, boolean tooLong) {}

    private static Expected cut(byte[] stream) {
        List<byte[]> frames = new ArrayList<>();
        ByteBuffer in = ByteBuffer.wrap(stream);
        while (in.remaining() >= 4) {
            int size = in.getInt();
            if (size < 0 || size > MAX_FRAME_BYTES) {
                return new Expected(frames, true);
            }
            if (in.remaining() < size) {
                break;
            }
            byte[] frame = new byte[size];
            in.get(frame);
            frames.add(frame);
        }
        return new Expected(frames, false);
    }

    /** Keeps the frames and the failures the framer passes on. */
    private static final class Collector extends ChannelInboundHandlerAdapter {
        private final List<ByteBuf> frames;
        private final List<Throwable> failures;

        Collector(List<ByteBuf> frames, List<Throwable> failures) {
            this.frames = frames;
            this.failures = failures;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            frames.add((ByteBuf) msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failures.add(cause);
            ctx.close();
        }
    }
}

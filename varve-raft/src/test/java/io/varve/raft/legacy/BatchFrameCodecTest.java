package io.varve.raft.legacy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchFrameCodecTest {

    private static ByteBuffer body(ByteBuffer frame) {
        ByteBuffer body = frame.duplicate();
        body.position(BatchFrameCodec.LENGTH_FIELD_BYTES);
        return body;
    }

    @Test
    void frameRoundTripsOffsetEpochAndPayloadsIncludingEmptyOnes() throws Exception {
        LogBatch batch = new LogBatch(42, 7, List.of(new byte[] {1, 2, 3}, new byte[0]));
        ByteBuffer frame = BatchFrameCodec.encode(batch);

        assertThat(frame.remaining()).isEqualTo(BatchFrameCodec.frameSizeInBytes(batch.payloads()));
        assertThat(frame.getInt(0)).isEqualTo(frame.remaining() - BatchFrameCodec.LENGTH_FIELD_BYTES);
        LogBatch decoded = BatchFrameCodec.decode(body(frame));
        assertThat(decoded.baseOffset()).isEqualTo(42);
        assertThat(decoded.epoch()).isEqualTo(7);
        assertThat(decoded.payloads()).containsExactly(new byte[] {1, 2, 3}, new byte[0]);
    }

    @Test
    void anyFlippedBitIsDetected() {
        ByteBuffer frame = BatchFrameCodec.encode(new LogBatch(0, 1, List.of(new byte[] {9, 9, 9})));
        for (int i = BatchFrameCodec.LENGTH_FIELD_BYTES; i < frame.limit(); i++) {
            ByteBuffer corrupted = ByteBuffer.allocate(frame.limit());
            corrupted.put(frame.duplicate()).flip();
            corrupted.put(i, (byte) (corrupted.get(i) ^ 1));
            assertThatThrownBy(() -> BatchFrameCodec.decode(body(corrupted))).isInstanceOf(CorruptFrameException.class);
        }
    }

    @Test
    void implausibleLengthFieldIsCorruption() {
        assertThatThrownBy(() -> BatchFrameCodec.checkFrameBytes(0)).isInstanceOf(CorruptFrameException.class);
        assertThatThrownBy(() -> BatchFrameCodec.checkFrameBytes(-5)).isInstanceOf(CorruptFrameException.class);
        assertThatThrownBy(() -> BatchFrameCodec.checkFrameBytes(Integer.MAX_VALUE))
                .isInstanceOf(CorruptFrameException.class);
    }
}

package io.varve.broker.protocol;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class RequestParserTest {

    /** Found by the fuzzer in CI: kafka-clients keeps key 5 (StopReplica) without a version left and throws on it. */
    @Test
    void anApiKeyKafkaClientsKnowsWithoutAnyVersionIsAnInvalidFrameNotAnUnsupportedVersion() {
        ByteBuffer frame = ByteBuffer.allocate(12)
                .putShort((short) 5)
                .putShort((short) 0)
                .putInt(7)
                .putShort((short) -1);
        frame.flip();

        assertThatThrownBy(() -> RequestParser.parseHeader(frame))
                .isInstanceOf(InvalidFrameException.class)
                .hasMessageContaining("STOP_REPLICA");
    }
}

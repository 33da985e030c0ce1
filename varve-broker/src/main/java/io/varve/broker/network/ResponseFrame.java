package io.varve.broker.network;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;

/**
 * A serialised response: byte chunks and file regions, written to the socket in order. File regions go from the
 * page cache to the socket with sendfile, never through the heap.
 */
public record ResponseFrame(List<Part> parts, boolean closeAfterWrite, long muteMs, Runnable onSent) {

    public ResponseFrame(List<Part> parts) {
        this(parts, false, 0, null);
    }

    /** This response, after which the connection is closed (a failed authentication, a request out of turn). */
    public ResponseFrame thenClose() {
        return new ResponseFrame(parts, true, muteMs, onSent);
    }

    /**
     * This response, after which the connection reads nothing for {@code muteMs}: a client over its quota
     * (the response carries the same throttle time).
     */
    public ResponseFrame thenMuteFor(long muteMs) {
        return new ResponseFrame(parts, closeAfterWrite, muteMs, onSent);
    }

    /**
     * This response, with {@code listener} run on the network thread once the socket took its last byte (or the write
     * failed): the request metrics' send time.
     */
    public ResponseFrame whenSent(Runnable listener) {
        return new ResponseFrame(parts, closeAfterWrite, muteMs, listener);
    }

    public sealed interface Part permits Bytes, FileRegionPart {}

    public record Bytes(ByteBuffer buffer) implements Part {}

    /** {@code sizeBytes} bytes of {@code channel} from {@code position}; the channel is not closed by the write. */
    public record FileRegionPart(FileChannel channel, long position, int sizeBytes) implements Part {}

    public static ResponseFrame of(ByteBuffer buffer) {
        return new ResponseFrame(List.of(new Bytes(buffer)));
    }
}

package io.varve.tiered.read;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The record bytes of a remote read: in memory (a view of cached chunks, or a copy when the range spans chunks), or
 * a range of the remote object's own file when the backend keeps objects as local files, which the broker sends with
 * sendfile as it sends local segments.
 */
public sealed interface RemoteRecords {

    /** No bytes (nothing fitted the byte limit). */
    RemoteRecords EMPTY = new InMemory(ByteBuffer.allocate(0).asReadOnlyBuffer());

    int sizeBytes();

    /** The bytes in a heap buffer of their own (copied from the file when in one): for tests and small lookups. */
    ByteBuffer readBytes();

    /** Read-only bytes from position to limit. */
    record InMemory(ByteBuffer bytes) implements RemoteRecords {
        @Override
        public int sizeBytes() {
            return bytes.remaining();
        }

        @Override
        public ByteBuffer readBytes() {
            return bytes.duplicate();
        }
    }

    /**
     * {@code sizeBytes} bytes of {@code channel} from {@code position}, already read once so that they sit in the page
     * cache. The channel belongs to the read path, which closes it only well after it stops handing it out.
     */
    record InFile(FileChannel channel, long position, int sizeBytes) implements RemoteRecords {
        @Override
        public ByteBuffer readBytes() {
            ByteBuffer out = ByteBuffer.allocate(sizeBytes);
            try {
                while (out.hasRemaining()) {
                    if (channel.read(out, position + out.position()) < 0) {
                        throw new IOException("the file ended " + out.remaining() + " bytes early");
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("reading remote records from their file failed", e);
            }
            return out.flip();
        }
    }
}

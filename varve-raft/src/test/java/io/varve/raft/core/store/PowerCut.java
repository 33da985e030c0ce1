package io.varve.raft.core.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * What a power cut leaves of a {@link FileRaftLog}: its last segment keeps every flushed byte and a random
 * part of the unflushed ones (the page cache wrote some back, maybe half a frame), and the rest of the
 * file may read as zeros (an extended file whose data block never reached the disk). Earlier segments
 * were fsynced whole before the next one was created.
 */
final class PowerCut {
    private PowerCut() {}

    static void cut(FileRaftLog log, Random random) {
        Optional<Map.Entry<Path, Long>> last = log.lastSegmentFlushedBytes();
        log.close();
        if (last.isEmpty()) {
            return;
        }
        Path file = last.get().getKey();
        long flushedBytes = last.get().getValue();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            long size = channel.size();
            long keep = flushedBytes
                    + (size == flushedBytes ? 0 : (long) (random.nextDouble() * (size - flushedBytes + 1)));
            channel.truncate(Math.min(keep, size));
            if (random.nextInt(4) == 0) {
                DurableIoForTests.writeZeros(channel, Math.min(keep, size), 1 + random.nextInt(200));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Small write helpers for damaging files on purpose. */
    static final class DurableIoForTests {
        private DurableIoForTests() {}

        static void writeZeros(FileChannel channel, long position, int count) throws IOException {
            channel.write(ByteBuffer.allocate(count), position);
        }

        static void flipByte(Path file, long position) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer one = ByteBuffer.allocate(1);
                channel.read(one, position);
                one.put(0, (byte) (one.get(0) ^ 0x5A)).position(0);
                channel.write(one, position);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}

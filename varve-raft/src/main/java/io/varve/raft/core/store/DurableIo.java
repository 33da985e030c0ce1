package io.varve.raft.core.store;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The few durable-file moves the stores make: complete positional reads and writes, an atomic replace
 * (temp file, fsync, rename, directory fsync) and a directory fsync. {@code varve-storage} has the same
 * helpers, but depending on it would pull kafka-clients into the Raft module.
 */
final class DurableIo {
    static final String TEMP_SUFFIX = ".tmp";

    private DurableIo() {}

    static void writeFully(FileChannel channel, ByteBuffer source, long position) throws IOException {
        long at = position;
        while (source.hasRemaining()) {
            at += channel.write(source, at);
        }
    }

    /** Fills {@code target} from {@code position}; an {@link EOFException} if the file ends first. */
    static void readFully(FileChannel channel, ByteBuffer target, long position) throws IOException {
        long at = position;
        while (target.hasRemaining()) {
            int read = channel.read(target, at);
            if (read < 0) {
                throw new EOFException("file ended at " + at + " with " + target.remaining() + " bytes to read");
            }
            at += read;
        }
    }

    /** Replaces {@code file} so that a crash leaves the old or the new content, never a mix. */
    static void replaceAtomically(Path file, byte[] content) {
        Path temp = file.resolveSibling(file.getFileName() + TEMP_SUFFIX);
        try {
            try (FileChannel channel = FileChannel.open(
                    temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                writeFully(channel, ByteBuffer.wrap(content), 0);
                channel.force(true);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            fsyncDirectory(file.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("could not replace " + file, e);
        }
    }

    /** Makes the creations, renames and deletions inside {@code dir} durable. */
    static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    static void deleteAndSync(Path file) {
        try {
            Files.deleteIfExists(file);
            fsyncDirectory(file.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + file, e);
        }
    }
}

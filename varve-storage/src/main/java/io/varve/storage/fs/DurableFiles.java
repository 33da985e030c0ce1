package io.varve.storage.fs;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/** Static helpers for crash-safe file handling. */
public final class DurableFiles {

    public static final String TEMP_SUFFIX = ".tmp";

    private DurableFiles() {}

    /** Writes all of {@code src} at {@code position}; positional, so safe beside concurrent readers. */
    public static void writeFully(FileChannel channel, ByteBuffer src, long position) throws IOException {
        long at = position;
        while (src.hasRemaining()) {
            at += channel.write(src, at);
        }
    }

    /**
     * Opens the file {@code path} names now; when it was renamed between reading the name and opening it (a segment
     * changing state), opens it under its new name.
     */
    public static FileChannel openFollowingRenames(
            java.util.function.Supplier<Path> path, java.nio.file.OpenOption... options) throws IOException {
        Path at = path.get();
        for (int attempt = 0; ; attempt++) {
            try {
                return FileChannel.open(at, options);
            } catch (java.nio.file.NoSuchFileException e) {
                Path now = path.get();
                if (now.equals(at) || attempt >= 2) {
                    throw e;
                }
                at = now;
            }
        }
    }

    /** Fills {@code dst} from {@code position}; throws EOFException if the file ends first. */
    public static void readFully(FileChannel channel, ByteBuffer dst, long position) throws IOException {
        long at = position;
        while (dst.hasRemaining()) {
            int read = channel.read(dst, at);
            if (read < 0) {
                throw new EOFException("File ended at " + at + " while reading " + dst.remaining() + " more bytes");
            }
            at += read;
        }
    }

    /**
     * Replaces {@code file} with {@code content} so that a crash leaves either the old or the new
     * content: write a temp file, fsync it, rename over the target, fsync the directory.
     */
    public static void writeAtomically(Path file, String content) {
        try {
            writeAtomically(file, ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write " + file, e);
        }
    }

    /** {@link #writeAtomically(Path, String)} for binary content (position to limit of {@code content}). */
    public static void writeAtomically(Path file, ByteBuffer content) throws IOException {
        replace(file, content, true);
    }

    /**
     * Replaces {@code file} whole through a temp file and a rename, so a reader never sees half of it; with
     * {@code fsync} the content and the rename are durable on return (see {@link #writeAtomically}), without it a
     * power loss may leave the old content, or an empty file, which the caller must be able to tell.
     */
    public static void replace(Path file, ByteBuffer content, boolean fsync) throws IOException {
        Path temp = file.resolveSibling(file.getFileName() + TEMP_SUFFIX);
        try (FileChannel channel = FileChannel.open(
                temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            writeFully(channel, content.duplicate(), 0);
            if (fsync) {
                channel.force(true);
            }
        }
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (fsync) {
            fsyncDirectory(file.toAbsolutePath().getParent());
        }
    }

    /** Fsyncs the content of {@code file} written earlier without one; nothing when the file is gone meanwhile. */
    public static void fsyncIfExists(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (java.nio.file.NoSuchFileException e) {
            // deleted meanwhile (pruned, or its log deleted): nothing left to make durable
        }
    }

    /** Makes creations, renames and deletions inside {@code dir} durable. */
    public static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /** Deletes {@code root} and everything below it; a missing root is not an error. */
    public static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                deleteIfPresent(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                if (exc != null) {
                    throw exc;
                }
                deleteIfPresent(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void deleteIfPresent(Path path) throws IOException {
        try {
            Files.delete(path);
        } catch (NoSuchFileException ignored) {
            // deleted concurrently; the goal is reached
        }
    }
}

package io.varve.tiered.fs;

import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;
import io.varve.tiered.spi.BoundedInputStream;
import io.varve.tiered.spi.IndexType;
import io.varve.tiered.spi.ObjectKeys;
import io.varve.tiered.spi.RemoteResourceNotFoundException;
import io.varve.tiered.spi.RemoteStorage;
import io.varve.tiered.spi.RemoteStorageException;
import io.varve.tiered.spi.SegmentFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RemoteStorage} on a directory. Each object is written to a temporary file next to its final path, fsynced,
 * then renamed atomically, so a crash leaves at worst a temporary file (removed by {@link #deleteSegment}), never a
 * half object under the final key. I/O errors are reported retriable (a mount can come back); a missing object is
 * {@link RemoteResourceNotFoundException}.
 */
public final class FileSystemRemoteStorage implements RemoteStorage {
    /** Config key (after the {@code rsm.config.} prefix): the directory acting as the bucket. */
    public static final String ROOT_DIR_CONFIG = "fs.root.dir";
    /** Config key shared with the other backends: the object key prefix. */
    public static final String KEY_PREFIX_CONFIG = "key.prefix";

    private static final String TEMP_MARKER = ".tmp-";
    private static final Logger log = LoggerFactory.getLogger(FileSystemRemoteStorage.class);

    private final Path root;
    private final ObjectKeys keys;

    public FileSystemRemoteStorage(Path root, String keyPrefix) {
        this.root = Objects.requireNonNull(root, "root").toAbsolutePath().normalize();
        this.keys = new ObjectKeys(keyPrefix);
    }

    /** Builds the backend from its {@code rsm.config.*} keys (prefix already stripped). */
    public static FileSystemRemoteStorage fromConfig(Map<String, String> config) {
        String root = config.get(ROOT_DIR_CONFIG);
        if (root == null || root.isBlank()) {
            throw new IllegalArgumentException(
                    "rsm.config." + ROOT_DIR_CONFIG + " must name the directory for remote segments.");
        }
        return new FileSystemRemoteStorage(Path.of(root), config.getOrDefault(KEY_PREFIX_CONFIG, ""));
    }

    public Path root() {
        return root;
    }

    @Override
    public void copySegment(RemoteSegmentMetadata metadata, SegmentFiles files) throws RemoteStorageException {
        try {
            Path logTarget = path(keys.logKey(metadata));
            Files.createDirectories(logTarget.getParent());
            for (IndexType type : IndexType.values()) {
                Path target = path(keys.indexKey(metadata, type));
                if (type == IndexType.LEADER_EPOCH) {
                    writeAtomically(target, files.leaderEpochCheckpoint());
                } else {
                    Optional<Path> source = files.file(type);
                    if (source.isPresent()) {
                        copyAtomically(source.get(), target);
                    }
                }
            }
            copyAtomically(files.log(), logTarget); // last: a complete .log implies complete indexes
            log.info(
                    "Copied remote segment {} [{}, {}] to {}",
                    metadata.segmentId(),
                    metadata.startOffset(),
                    metadata.endOffset(),
                    logTarget);
        } catch (IOException e) {
            throw new RemoteStorageException(
                    "copying segment " + metadata.segmentId() + " to " + root + " failed: " + e, e, true);
        }
    }

    @Override
    public InputStream fetchLogSegment(RemoteSegmentMetadata metadata, long startPosition, long endPosition)
            throws RemoteStorageException {
        if (startPosition < 0 || endPosition < startPosition) {
            throw new RemoteStorageException(
                    "bad byte range [" + startPosition + ", " + endPosition + "] for " + metadata.segmentId(), false);
        }
        Path file = path(keys.logKey(metadata));
        FileChannel channel = open(file, metadata);
        try {
            long size = channel.size();
            if (startPosition >= size) {
                channel.close();
                throw new RemoteStorageException(
                        "start position " + startPosition + " is past the end (" + size + " bytes) of "
                                + metadata.segmentId(),
                        false);
            }
            channel.position(startPosition);
            long length = Math.min(endPosition, size - 1) - startPosition + 1;
            return new BoundedInputStream(Channels.newInputStream(channel), length);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new RemoteStorageException("reading " + file + " failed: " + e, e, true);
        }
    }

    @Override
    public Optional<Path> logSegmentFile(RemoteSegmentMetadata metadata) {
        return Optional.of(path(keys.logKey(metadata)));
    }

    @Override
    public InputStream fetchIndex(RemoteSegmentMetadata metadata, IndexType indexType) throws RemoteStorageException {
        return Channels.newInputStream(open(path(keys.indexKey(metadata, indexType)), metadata));
    }

    @Override
    public void deleteSegment(RemoteSegmentMetadata metadata) throws RemoteStorageException {
        Path logFile = path(keys.logKey(metadata));
        Path dir = logFile.getParent();
        String logName = logFile.getFileName().toString();
        String segmentPrefix =
                logName.substring(0, logName.length() - ObjectKeys.LOG_SUFFIX.length()); // "<offset>-<id>."
        int deleted = 0;
        try (DirectoryStream<Path> entries =
                Files.newDirectoryStream(dir, e -> e.getFileName().toString().startsWith(segmentPrefix))) {
            for (Path entry : entries) {
                if (Files.deleteIfExists(entry)) {
                    deleted++;
                }
            }
        } catch (NoSuchFileException e) {
            return; // the partition directory is gone: so is the segment
        } catch (IOException e) {
            throw new RemoteStorageException(
                    "deleting segment " + metadata.segmentId() + " from " + dir + " failed: " + e, e, true);
        }
        log.info("Deleted remote segment {} ({} files)", metadata.segmentId(), deleted);
    }

    @Override
    public void putMetadata(TopicIdPartition partition, String name, byte[] content) throws RemoteStorageException {
        Path target = path(keys.metadataKey(partition, name));
        try {
            Files.createDirectories(target.getParent());
            writeAtomically(target, ByteBuffer.wrap(content));
        } catch (IOException e) {
            throw new RemoteStorageException("writing " + target + " failed: " + e, e, true);
        }
    }

    @Override
    public Optional<byte[]> getMetadata(TopicIdPartition partition, String name) throws RemoteStorageException {
        Path file = path(keys.metadataKey(partition, name));
        try {
            return Optional.of(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new RemoteStorageException("reading " + file + " failed: " + e, e, true);
        }
    }

    @Override
    public List<String> listMetadata(TopicIdPartition partition) throws RemoteStorageException {
        Path dir = path(keys.metadataPrefix(partition));
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.contains(TEMP_MARKER)) {
                    names.add(name);
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new RemoteStorageException("listing " + dir + " failed: " + e, e, true);
        }
        names.sort(null);
        return names;
    }

    @Override
    public void deleteMetadata(TopicIdPartition partition, String name) throws RemoteStorageException {
        Path file = path(keys.metadataKey(partition, name));
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new RemoteStorageException("deleting " + file + " failed: " + e, e, true);
        }
    }

    @Override
    public void close() {
        // nothing held open between calls
    }

    private Path path(String key) {
        Path p = root.resolve(key).normalize();
        if (!p.startsWith(root)) {
            throw new IllegalArgumentException("object key escapes the root directory: " + key);
        }
        return p;
    }

    private static FileChannel open(Path file, RemoteSegmentMetadata metadata) throws RemoteStorageException {
        try {
            return FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new RemoteResourceNotFoundException(
                    "no object " + file.getFileName() + " for remote segment " + metadata.segmentId(), e);
        } catch (IOException e) {
            throw new RemoteStorageException("opening " + file + " failed: " + e, e, true);
        }
    }

    private static void copyAtomically(Path source, Path target) throws IOException {
        Path temp = tempFor(target);
        try {
            try (FileChannel in = FileChannel.open(source, StandardOpenOption.READ);
                    FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                long size = in.size();
                long copied = 0;
                while (copied < size) {
                    long n = in.transferTo(copied, size - copied, out);
                    if (n <= 0 && in.size() < size) {
                        throw new IOException(source + " shrank while being copied");
                    }
                    copied += n;
                }
                out.force(true);
            }
            publish(temp, target);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static void writeAtomically(Path target, ByteBuffer content) throws IOException {
        Path temp = tempFor(target);
        try {
            try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer buf = content.duplicate();
                while (buf.hasRemaining()) {
                    out.write(buf);
                }
                out.force(true);
            }
            publish(temp, target);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static void publish(Path temp, Path target) throws IOException {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            log.debug("Could not fsync directory {}: {}", target.getParent(), e.toString());
        }
    }

    private static Path tempFor(Path target) {
        return target.resolveSibling(target.getFileName() + TEMP_MARKER + UUID.randomUUID());
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // already failing
        }
    }
}

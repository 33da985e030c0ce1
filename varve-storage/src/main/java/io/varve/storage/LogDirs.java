package io.varve.storage;

import io.varve.storage.fs.DurableFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the log manager does to its log dirs themselves: locks each against a second broker process, and lists the
 * partition directories ({@code <topic>-<partition>}) in one, finishing deletions a crash interrupted.
 */
final class LogDirs {

    static final String LOCK_FILE = ".lock";
    /** Raft owns the metadata log's directory; it is not a partition log. */
    private static final String METADATA_TOPIC = "__cluster_metadata";

    private static final Logger log = LoggerFactory.getLogger(LogDirs.class);

    private final Map<Path, FileChannel> locks = new LinkedHashMap<>();

    /** Takes {@code dir}'s lock file; fails when another process (or this one) holds it. */
    void lock(Path dir) throws IOException {
        FileChannel channel =
                FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            channel.close();
            throw new KafkaStorageException("Log dir " + dir + " is in use by another broker");
        }
        locks.put(dir, channel);
    }

    void releaseLocks() {
        for (FileChannel lockChannel : locks.values()) {
            try {
                lockChannel.close(); // releases the lock
            } catch (IOException e) {
                log.warn("Could not release a log dir lock", e);
            }
        }
        locks.clear();
    }

    /**
     * The partition directories in {@code dir} by partition. Directories ending in {@link LogManager#DELETE_DIR_SUFFIX}
     * (renamed by a deletion a crash interrupted) are deleted; other names are ignored.
     */
    static Map<TopicPartition, Path> listPartitionDirs(Path dir) throws IOException {
        Map<TopicPartition, Path> found = new LinkedHashMap<>();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir, Files::isDirectory)) {
            for (Path child : children) {
                String dirName = child.getFileName().toString();
                if (dirName.endsWith(LogManager.DELETE_DIR_SUFFIX)) {
                    DurableFiles.deleteRecursively(child);
                    log.info("Deleted {} left from an earlier log deletion", child);
                    continue;
                }
                Optional<TopicPartition> parsed = parsePartitionDirName(dirName);
                if (parsed.isPresent() && !parsed.get().topic().equals(METADATA_TOPIC)) {
                    found.put(parsed.get(), child);
                }
            }
        }
        return found;
    }

    /** {@code "<topic>-<partition>"} to a TopicPartition, or empty when the name is not one. */
    static Optional<TopicPartition> parsePartitionDirName(String dirName) {
        int dash = dirName.lastIndexOf('-');
        if (dash <= 0 || dash == dirName.length() - 1) {
            return Optional.empty();
        }
        String partition = dirName.substring(dash + 1);
        for (int i = 0; i < partition.length(); i++) {
            if (!Character.isDigit(partition.charAt(i))) {
                return Optional.empty();
            }
        }
        try {
            return Optional.of(new TopicPartition(dirName.substring(0, dash), Integer.parseInt(partition)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}

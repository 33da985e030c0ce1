package io.varve.storage;

import io.varve.storage.fs.DurableFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up decision for replica moves a crash interrupted ({@link ReplicaDirMover}), before any log dir is loaded. A
 * move leaves {@code <topic>-<partition>.<id>-future} in the destination; its swap renames the source to
 * {@code <topic>-<partition>.<id>-delete} (the same id) and only then the future to {@code <topic>-<partition>}. So:
 * a future beside a live {@code <topic>-<partition>} in any log dir did not complete and is deleted (the old replica
 * serves); a future whose source was already retired under its id completed and is renamed into place (the new replica
 * serves); a future with neither (its partition was deleted meanwhile) is deleted. Exactly one replica survives.
 */
final class ReplicaMoveRecovery {

    private static final Logger log = LoggerFactory.getLogger(ReplicaMoveRecovery.class);

    private ReplicaMoveRecovery() {}

    /** A future dir's partition and move id, from its name; empty when the name is not one. */
    record FutureName(TopicPartition topicPartition, String moveId) {
        static Optional<FutureName> parse(String dirName, String suffix) {
            if (!dirName.endsWith(suffix)) {
                return Optional.empty();
            }
            String stem = dirName.substring(0, dirName.length() - suffix.length());
            int dot = stem.lastIndexOf('.');
            if (dot <= 0) {
                return Optional.empty();
            }
            return LogDirs.parsePartitionDirName(stem.substring(0, dot))
                    .map(tp -> new FutureName(tp, stem.substring(dot + 1)));
        }
    }

    static void recover(List<Path> logDirs) throws IOException {
        Set<TopicPartition> live = new HashSet<>();
        Set<FutureName> retired = new HashSet<>();
        for (Path dir : logDirs) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            for (Path child : children(dir)) {
                String name = child.getFileName().toString();
                LogDirs.parsePartitionDirName(name).ifPresent(live::add);
                FutureName.parse(name, LogManager.DELETE_DIR_SUFFIX).ifPresent(retired::add);
            }
        }
        for (Path dir : logDirs) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            for (Path child : children(dir)) {
                Optional<FutureName> future =
                        FutureName.parse(child.getFileName().toString(), ReplicaDirMover.FUTURE_DIR_SUFFIX);
                if (future.isEmpty()) {
                    continue;
                }
                TopicPartition tp = future.get().topicPartition();
                if (!live.contains(tp) && retired.contains(future.get())) {
                    Path target = dir.resolve(tp.topic() + "-" + tp.partition());
                    Files.move(child, target, StandardCopyOption.ATOMIC_MOVE);
                    DurableFiles.fsyncDirectory(dir);
                    live.add(tp);
                    log.info(
                            "Completed the move of {} into {}: its old replica was retired before the broker stopped",
                            tp,
                            dir);
                } else {
                    DurableFiles.deleteRecursively(child);
                    log.info(
                            "Deleted the unfinished move of {} into {}: {}",
                            tp,
                            dir,
                            live.contains(tp) ? "its replica where it was serves on" : "its partition was deleted");
                }
            }
        }
    }

    private static List<Path> children(Path dir) throws IOException {
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, Files::isDirectory)) {
            List<Path> found = new java.util.ArrayList<>();
            stream.forEach(found::add);
            return found;
        }
    }
}

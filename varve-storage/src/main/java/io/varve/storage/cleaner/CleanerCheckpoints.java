package io.varve.storage.cleaner;

import io.varve.storage.checkpoint.OffsetCheckpointFile;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code cleaner-offset-checkpoint} of each log dir: per compacted partition, the first offset not yet
 * cleaned (everything below it was deduplicated by some pass). Written after every pass, once its swap is
 * durable; a crash before the write only makes the next pass redo some work.
 */
final class CleanerCheckpoints {

    private static final Logger log = LoggerFactory.getLogger(CleanerCheckpoints.class);

    private final Map<Path, Map<TopicPartition, Long>> offsetsByDir = new ConcurrentHashMap<>();

    CleanerCheckpoints(Collection<Path> logDirs) {
        for (Path dir : logDirs) {
            offsetsByDir.put(normalize(dir), read(dir));
        }
    }

    private static Map<TopicPartition, Long> read(Path dir) {
        Map<TopicPartition, Long> offsets = new ConcurrentHashMap<>();
        try {
            offsets.putAll(file(dir).read());
        } catch (KafkaStorageException e) {
            // losing it costs one pass over each compacted log, not data
            log.warn(
                    "Ignoring {}: {}; compacted logs in {} will be cleaned from their start",
                    OffsetCheckpointFile.CLEANER_OFFSET_FILE,
                    e.getMessage(),
                    dir);
        }
        return offsets;
    }

    private static OffsetCheckpointFile file(Path dir) {
        return new OffsetCheckpointFile(dir, OffsetCheckpointFile.CLEANER_OFFSET_FILE);
    }

    private static Path normalize(Path dir) {
        return dir.toAbsolutePath().normalize();
    }

    private Map<TopicPartition, Long> of(Path logDir) {
        return offsetsByDir.computeIfAbsent(normalize(logDir), CleanerCheckpoints::read);
    }

    OptionalLong get(Path logDir, TopicPartition tp) {
        Long offset = of(logDir).get(tp);
        return offset == null ? OptionalLong.empty() : OptionalLong.of(offset);
    }

    synchronized void update(Path logDir, TopicPartition tp, long firstDirtyOffset) {
        Map<TopicPartition, Long> offsets = of(logDir);
        offsets.put(tp, firstDirtyOffset);
        file(logDir).write(offsets);
    }

    synchronized void remove(Path logDir, TopicPartition tp) {
        Map<TopicPartition, Long> offsets = of(logDir);
        if (offsets.remove(tp) != null) {
            file(logDir).write(offsets);
        }
    }

    /** Forgets the entries of partitions not in {@code existing} (logs deleted while the broker was down). */
    synchronized void retainOnly(Collection<TopicPartition> existing) {
        offsetsByDir.forEach((dir, offsets) -> {
            if (offsets.keySet().retainAll(existing)) {
                try {
                    file(dir).write(offsets);
                } catch (RuntimeException e) {
                    log.warn("Could not drop stale entries from the cleaner checkpoint of {}: {}", dir, e.toString());
                }
            }
        });
    }
}

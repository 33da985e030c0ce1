package io.varve.storage;

import io.varve.storage.checkpoint.OffsetCheckpointFile;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.TopicPartition;

/**
 * The offset checkpoints of one log dir: {@code recovery-point-offset-checkpoint} (every offset below a
 * log's entry is fsynced, so recovery after a crash starts there), {@code log-start-offset-checkpoint}
 * (where retention and DeleteRecords moved each log's start) and {@code replication-offset-checkpoint} (each
 * log's high watermark, so that a restarted replica exposes only what it knew committed). Writes are serialised
 * per dir and never take a log's lock: they read each log's volatile offsets.
 */
final class LogDirCheckpoints {

    private final Path dir;
    private final OffsetCheckpointFile recoveryPoints;
    private final OffsetCheckpointFile logStartOffsets;
    private final OffsetCheckpointFile highWatermarks;
    private final AtomicBoolean logStartOffsetsDirty = new AtomicBoolean();

    LogDirCheckpoints(Path dir) {
        this.dir = dir;
        this.recoveryPoints = new OffsetCheckpointFile(dir, OffsetCheckpointFile.RECOVERY_POINT_FILE);
        this.logStartOffsets = new OffsetCheckpointFile(dir, OffsetCheckpointFile.LOG_START_OFFSET_FILE);
        this.highWatermarks = new OffsetCheckpointFile(dir, OffsetCheckpointFile.HIGH_WATERMARK_FILE);
    }

    Path dir() {
        return dir;
    }

    Map<TopicPartition, Long> readRecoveryPoints() {
        return recoveryPoints.read();
    }

    Map<TopicPartition, Long> readLogStartOffsets() {
        return logStartOffsets.read();
    }

    Map<TopicPartition, Long> readHighWatermarks() {
        return highWatermarks.read();
    }

    /** Remembers that a log start offset moved; the next {@link #writeLogStartOffsetsIfDirty} persists it. */
    void markLogStartOffsetsDirty() {
        logStartOffsetsDirty.set(true);
    }

    /** Writes the three files: the open logs' offsets, and the deferred logs' offsets as they were read. */
    synchronized void writeAll(Collection<PartitionLog> logsInDir, Collection<DeferredLogs.Entry> deferredInDir) {
        recoveryPoints.write(offsets(logsInDir, PartitionLog::recoveryPoint, deferredInDir, e -> e.recoveryPoint));
        writeLogStartOffsets(logsInDir, deferredInDir);
        writeHighWatermarks(logsInDir, deferredInDir);
    }

    /** The high-watermark checkpoint alone: written every replica.high.watermark.checkpoint.interval.ms. */
    synchronized void writeHighWatermarks(
            Collection<PartitionLog> logsInDir, Collection<DeferredLogs.Entry> deferredInDir) {
        highWatermarks.write(offsets(logsInDir, PartitionLog::highWatermark, deferredInDir, e -> e.highWatermark));
    }

    synchronized void writeLogStartOffsets(
            Collection<PartitionLog> logsInDir, Collection<DeferredLogs.Entry> deferredInDir) {
        logStartOffsetsDirty.set(false);
        logStartOffsets.write(
                offsets(logsInDir, PartitionLog::logStartOffsetToCheckpoint, deferredInDir, e -> e.logStartOffset));
    }

    void writeLogStartOffsetsIfDirty(Collection<PartitionLog> logsInDir, Collection<DeferredLogs.Entry> deferredInDir) {
        if (logStartOffsetsDirty.get()) {
            writeLogStartOffsets(logsInDir, deferredInDir);
        }
    }

    private static Map<TopicPartition, Long> offsets(
            Collection<PartitionLog> logs,
            ToLongFunction<PartitionLog> offset,
            Collection<DeferredLogs.Entry> deferred,
            ToLongFunction<DeferredLogs.Entry> carried) {
        Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
        for (DeferredLogs.Entry entry : deferred) {
            long value = carried.applyAsLong(entry);
            if (value >= 0) {
                offsets.put(entry.topicPartition, value);
            }
        }
        // an open log's own value wins over what its entry carried (both exist for a moment while it is published)
        for (PartitionLog log : logs) {
            offsets.put(log.topicPartition(), offset.applyAsLong(log));
        }
        return offsets;
    }
}

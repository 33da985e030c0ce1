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
 * log's entry is fsynced, so recovery after a crash starts there) and {@code log-start-offset-checkpoint}
 * (where retention and DeleteRecords moved each log's start). Writes are serialised per dir and never
 * take a log's lock: they read each log's volatile offsets.
 */
final class LogDirCheckpoints {

  private final Path dir;
  private final OffsetCheckpointFile recoveryPoints;
  private final OffsetCheckpointFile logStartOffsets;
  private final AtomicBoolean logStartOffsetsDirty = new AtomicBoolean();

  LogDirCheckpoints(Path dir) {
    this.dir = dir;
    this.recoveryPoints = new OffsetCheckpointFile(dir, OffsetCheckpointFile.RECOVERY_POINT_FILE);
    this.logStartOffsets = new OffsetCheckpointFile(dir, OffsetCheckpointFile.LOG_START_OFFSET_FILE);
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

  /** Remembers that a log start offset moved; the next {@link #writeLogStartOffsetsIfDirty} persists it. */
  void markLogStartOffsetsDirty() {
    logStartOffsetsDirty.set(true);
  }

  synchronized void writeAll(Collection<PartitionLog> logsInDir) {
    recoveryPoints.write(offsets(logsInDir, PartitionLog::recoveryPoint));
    writeLogStartOffsets(logsInDir);
  }

  synchronized void writeLogStartOffsets(Collection<PartitionLog> logsInDir) {
    logStartOffsetsDirty.set(false);
    logStartOffsets.write(offsets(logsInDir, PartitionLog::logStartOffsetToCheckpoint));
  }

  void writeLogStartOffsetsIfDirty(Collection<PartitionLog> logsInDir) {
    if (logStartOffsetsDirty.get()) {
      writeLogStartOffsets(logsInDir);
    }
  }

  private static Map<TopicPartition, Long> offsets(Collection<PartitionLog> logs, ToLongFunction<PartitionLog> offset) {
    Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
    for (PartitionLog log : logs) {
      offsets.put(log.topicPartition(), offset.applyAsLong(log));
    }
    return offsets;
  }
}

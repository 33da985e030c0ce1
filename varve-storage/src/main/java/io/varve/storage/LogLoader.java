package io.varve.storage;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.fs.DurableFiles;
import io.varve.storage.producer.BatchMetadata;
import io.varve.storage.producer.ProducerStateManager;
import io.varve.storage.segment.BatchHeaderScanner;
import io.varve.storage.segment.LogSegment;
import io.varve.storage.segment.ScanResult;
import io.varve.storage.segment.SegmentFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a partition directory's segments and brings them to a consistent state: leftover temp files
 * and orphan indexes removed, missing or inconsistent indexes rebuilt, the active segment recovered
 * (CRC-checked, torn tail truncated) after an unclean shutdown, producer state rebuilt from headers.
 * Only the active segment can need recovery because a segment is fsynced when it is rolled.
 */
final class LogLoader {

  private static final Logger log = LoggerFactory.getLogger(LogLoader.class);

  /** What loading produced; the caller owns the open segments. */
  record LoadedLog(ConcurrentSkipListMap<Long, LogSegment> segments, long logEndOffset,
      ProducerStateManager producerState) {}

  private LogLoader() {}

  static LoadedLog load(Path dir, String name, LogConfig config, boolean hadCleanShutdown) throws IOException {
    long startNanos = System.nanoTime();
    TreeSet<Long> baseOffsets = cleanDirectoryAndListSegments(dir, name);
    ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();
    try {
      if (baseOffsets.isEmpty()) {
        segments.put(0L, LogSegment.create(dir, 0L));
        DurableFiles.fsyncDirectory(dir);
      }
      for (long baseOffset : baseOffsets) {
        segments.put(baseOffset, LogSegment.open(dir, baseOffset));
      }
      LogSegment active = segments.lastEntry().getValue();
      for (LogSegment segment : segments.headMap(active.baseOffset()).values()) {
        ensureClosedSegmentIndexed(name, segment, config);
      }
      long logEndOffset = loadActiveSegment(name, active, config, hadCleanShutdown);
      ProducerStateManager producerState = rebuildProducerState(name, segments.values());
      log.info("{}: loaded {} segments, log end offset {}, {} producers, clean shutdown {}, in {} ms", name,
          segments.size(), logEndOffset, producerState.producerCount(), hadCleanShutdown,
          (System.nanoTime() - startNanos) / 1_000_000);
      return new LoadedLog(segments, logEndOffset, producerState);
    } catch (IOException | RuntimeException e) {
      closeQuietly(segments.values(), e);
      throw e;
    }
  }

  /** Deletes temp files and indexes without a log file; returns the base offsets of the log files. */
  private static TreeSet<Long> cleanDirectoryAndListSegments(Path dir, String name) throws IOException {
    TreeSet<Long> logBaseOffsets = new TreeSet<>();
    List<Path> indexFiles = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        String fileName = file.getFileName().toString();
        OptionalLong logBase = SegmentFiles.parseBaseOffset(fileName, SegmentFiles.LOG_SUFFIX);
        if (fileName.endsWith(DurableFiles.TEMP_SUFFIX)) {
          Files.delete(file);
          log.info("{}: deleted leftover temp file {}", name, fileName);
        } else if (logBase.isPresent()) {
          logBaseOffsets.add(logBase.getAsLong());
        } else if (SegmentFiles.parseBaseOffset(fileName, SegmentFiles.INDEX_SUFFIX).isPresent()) {
          indexFiles.add(file);
        }
      }
    }
    for (Path indexFile : indexFiles) {
      long base = SegmentFiles.parseBaseOffset(indexFile.getFileName().toString(), SegmentFiles.INDEX_SUFFIX)
          .getAsLong();
      if (!logBaseOffsets.contains(base)) {
        Files.delete(indexFile);
        log.info("{}: deleted orphan index {}", name, indexFile.getFileName());
      }
    }
    return logBaseOffsets;
  }

  private static void ensureClosedSegmentIndexed(String name, LogSegment segment, LogConfig config)
      throws IOException {
    if (segment.indexLooksConsistent()) {
      return;
    }
    ScanResult scan = segment.rebuildIndex(config.indexIntervalBytes(), config.maxIndexSizeBytes(), false);
    if (!scan.reachedEnd()) {
      throw new KafkaStorageException(name + ": rolled segment " + segment.logFile() + " is corrupt at position "
          + scan.validBytes() + " (" + scan.stopReason() + "); it was fsynced when rolled, so this is disk damage");
    }
    log.info("{}: rebuilt index of segment {}", name, segment.logFile().getFileName());
  }

  /** Returns the log end offset, recovering the active segment unless it was shut down cleanly and looks intact. */
  private static long loadActiveSegment(String name, LogSegment active, LogConfig config, boolean hadCleanShutdown)
      throws IOException {
    if (hadCleanShutdown && active.indexLooksConsistent()) {
      ScanResult tail = active.scanTail();
      if (tail.reachedEnd()) {
        return tail.nextOffset();
      }
      log.warn("{}: active segment {} ends in an invalid batch after a clean shutdown ({}); recovering it", name,
          active.logFile().getFileName(), tail.stopReason());
    }
    int sizeBeforeBytes = active.sizeBytes();
    ScanResult recovered = active.rebuildIndex(config.indexIntervalBytes(), config.maxIndexSizeBytes(), true);
    int truncatedBytes = sizeBeforeBytes - recovered.validBytes();
    if (truncatedBytes > 0) {
      log.warn("{}: recovery truncated {} bytes from active segment {} at position {} ({})", name, truncatedBytes,
          active.logFile().getFileName(), recovered.validBytes(), recovered.stopReason());
    } else {
      log.info("{}: recovered active segment {}, {} bytes all valid", name, active.logFile().getFileName(),
          recovered.validBytes());
    }
    return recovered.nextOffset();
  }

  /**
   * Replays every batch header into a fresh producer state. Seam for producer-state snapshots: with a
   * snapshot, restore it and replay only the segments after its offset.
   */
  static ProducerStateManager rebuildProducerState(String name, Iterable<LogSegment> segments) throws IOException {
    ProducerStateManager producerState = new ProducerStateManager();
    for (LogSegment segment : segments) {
      BatchHeaderScanner scanner = segment.scanner(0, false);
      for (BatchHeader header = scanner.next(); header != null; header = scanner.next()) {
        if (header.hasProducerId()) {
          producerState.replay(header.producerId(), header.producerEpoch(), new BatchMetadata(header.baseSequence(),
              header.lastSequence(), header.baseOffset(), header.lastOffset(), header.maxTimestamp()));
        }
      }
      if (scanner.stop() != BatchHeaderScanner.Stop.END) {
        throw new KafkaStorageException(name + ": segment " + segment.logFile() + " is corrupt at position "
            + scanner.position() + " (" + scanner.stopReason() + ")");
      }
    }
    return producerState;
  }

  private static void closeQuietly(Iterable<LogSegment> segments, Exception cause) {
    for (LogSegment segment : segments) {
      try {
        segment.close();
      } catch (IOException e) {
        cause.addSuppressed(e);
      }
    }
  }
}

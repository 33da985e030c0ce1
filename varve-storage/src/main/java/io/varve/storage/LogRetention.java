package io.varve.storage;

import io.varve.storage.segment.LogSegment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

/**
 * Decides which head segments retention deletes, with Kafka's rules. Segments go from the head, in
 * order, while a rule holds for each; a segment only goes when all its offsets are below the high
 * watermark; the active segment counts too when it is not empty (the log then rolls first).
 * <ul>
 *   <li>{@code retention.ms}: the segment's largest timestamp is more than retention.ms before now;</li>
 *   <li>{@code retention.bytes}: the log stays at least retention.bytes large without the segment;</li>
 *   <li>log start offset: the next segment starts at or below it (DeleteRecords moved it past the segment).</li>
 * </ul>
 * The first two apply only when cleanup.policy contains delete. Reads no log data.
 */
final class LogRetention {

  /** Why segments are deleted, for the log line. */
  enum Reason {
    RETENTION_MS("retention.ms"), RETENTION_BYTES("retention.bytes"), LOG_START_OFFSET("log start offset");

    final String description;

    Reason(String description) {
      this.description = description;
    }
  }

  /** Head segments to delete and why. */
  record Plan(List<LogSegment> segments, Reason reason) {}

  @FunctionalInterface
  private interface Rule {
    boolean deletes(LogSegment segment, Long nextBaseOffset) throws IOException;
  }

  private LogRetention() {}

  /**
   * Retires head segments of {@code log} (whose lock the caller holds) while a rule holds; returns how many. Each round retires at least one
   * segment, and a log never has fewer than one, so the rounds are bounded by the segment count.
   */
  static int apply(PartitionLog log, NavigableMap<Long, LogSegment> segments, long nowMs) throws IOException {
    int retired = 0;
    int maxRounds = segments.size() + 1;
    for (int round = 0; round < maxRounds; round++) {
      Plan plan = plan(segments, log.config(), nowMs, log.highWatermark(), log.logEndOffset(), log.logStartOffset());
      if (plan == null) {
        break;
      }
      log.retire(plan.segments(), plan.reason().description, nowMs);
      retired += plan.segments().size();
    }
    return retired;
  }

  /** The first rule, in Kafka's order, that deletes at least one segment; null when none does. */
  static Plan plan(NavigableMap<Long, LogSegment> segments, LogConfig config, long nowMs, long highWatermark,
      long logEndOffset, long logStartOffset) throws IOException {
    if (config.deletesOldSegments()) {
      if (config.retentionMs() != LogConfig.UNLIMITED) {
        List<LogSegment> byTime = headWhile(segments, highWatermark, logEndOffset,
            (segment, next) -> nowMs - segment.largestTimestampMs() > config.retentionMs());
        if (!byTime.isEmpty()) {
          return new Plan(byTime, Reason.RETENTION_MS);
        }
      }
      long excessBytes = sizeBytes(segments) - config.retentionBytes();
      if (config.retentionBytes() != LogConfig.UNLIMITED && excessBytes > 0) {
        long[] remainingExcess = {excessBytes};
        List<LogSegment> bySize = headWhile(segments, highWatermark, logEndOffset, (segment, next) -> {
          if (remainingExcess[0] - segment.sizeBytes() < 0) {
            return false;
          }
          remainingExcess[0] -= segment.sizeBytes();
          return true;
        });
        if (!bySize.isEmpty()) {
          return new Plan(bySize, Reason.RETENTION_BYTES);
        }
      }
    }
    List<LogSegment> belowStart = headWhile(segments, highWatermark, logEndOffset,
        (segment, next) -> next != null && next <= logStartOffset);
    return belowStart.isEmpty() ? null : new Plan(belowStart, Reason.LOG_START_OFFSET);
  }

  static long sizeBytes(NavigableMap<Long, LogSegment> segments) {
    long total = 0;
    for (LogSegment segment : segments.values()) {
      total += segment.sizeBytes();
    }
    return total;
  }

  private static List<LogSegment> headWhile(NavigableMap<Long, LogSegment> segments, long highWatermark,
      long logEndOffset, Rule rule) throws IOException {
    List<LogSegment> doomed = new ArrayList<>();
    for (Map.Entry<Long, LogSegment> entry : segments.entrySet()) {
      Long next = segments.higherKey(entry.getKey());
      long upperBoundOffset = next == null ? logEndOffset : next;
      boolean lastAndEmpty = next == null && entry.getValue().isEmpty();
      if (lastAndEmpty || highWatermark < upperBoundOffset || !rule.deletes(entry.getValue(), next)) {
        break;
      }
      doomed.add(entry.getValue());
    }
    return doomed;
  }
}

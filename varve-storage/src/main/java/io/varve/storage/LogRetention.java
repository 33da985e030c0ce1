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
 *
 * <p>On a tiered log (remote.storage.enable, copying not disabled) the first two rules become local
 * retention: {@code local.retention.ms} / {@code local.retention.bytes} (-2: the retention.* value) delete a
 * segment's local copy only when all its offsets are at or below the highest offset confirmed uploaded, and
 * they leave the log start offset where it is (the offsets stay readable from remote storage). They apply
 * whatever the cleanup policy, since they only free local disk. Total retention of a tiered log (both tiers)
 * is the remote log manager's: it deletes remote segments and moves the log start offset, and the third
 * rule then drops local copies below it. With remote.log.copy.disable the plain rules apply again.
 */
final class LogRetention {

    /** Why segments are deleted, for the log line. */
    enum Reason {
        RETENTION_MS("retention.ms", true),
        RETENTION_BYTES("retention.bytes", true),
        LOG_START_OFFSET("log start offset", true),
        LOCAL_RETENTION_MS("local.retention.ms", false),
        LOCAL_RETENTION_BYTES("local.retention.bytes", false);

        final String description;
        /** False for local retention: the offsets remain readable from remote storage. */
        final boolean movesLogStartOffset;

        Reason(String description, boolean movesLogStartOffset) {
            this.description = description;
            this.movesLogStartOffset = movesLogStartOffset;
        }
    }

    /** Highest uploaded offset of a log that has none (or is not tiered). */
    static final long NOTHING_UPLOADED = -1L;

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
            Plan plan = plan(
                    segments,
                    log.config(),
                    nowMs,
                    log.highWatermark(),
                    log.logEndOffset(),
                    log.logStartOffset(),
                    log.highestUploadedOffset());
            if (plan == null) {
                break;
            }
            log.retire(plan.segments(), plan.reason().description, plan.reason().movesLogStartOffset, nowMs);
            retired += plan.segments().size();
        }
        return retired;
    }

    /** {@link #plan(NavigableMap, LogConfig, long, long, long, long, long)} of a log with nothing uploaded. */
    static Plan plan(
            NavigableMap<Long, LogSegment> segments,
            LogConfig config,
            long nowMs,
            long highWatermark,
            long logEndOffset,
            long logStartOffset)
            throws IOException {
        return plan(segments, config, nowMs, highWatermark, logEndOffset, logStartOffset, NOTHING_UPLOADED);
    }

    /**
     * The first rule, in Kafka's order, that deletes at least one segment; null when none does.
     *
     * @param highestUploadedOffset the highest offset confirmed in remote storage, or {@link #NOTHING_UPLOADED}
     */
    static Plan plan(
            NavigableMap<Long, LogSegment> segments,
            LogConfig config,
            long nowMs,
            long highWatermark,
            long logEndOffset,
            long logStartOffset,
            long highestUploadedOffset)
            throws IOException {
        Plan bySizeOrTime = null;
        if (config.remoteStorageEnable() && !config.remoteLogCopyDisable()) {
            Rule uploaded = (segment, next) -> next != null && next - 1 <= highestUploadedOffset;
            bySizeOrTime = byTimeThenSize(
                    segments,
                    highWatermark,
                    logEndOffset,
                    nowMs,
                    config.effectiveLocalRetentionMs(),
                    config.effectiveLocalRetentionBytes(),
                    uploaded,
                    Reason.LOCAL_RETENTION_MS,
                    Reason.LOCAL_RETENTION_BYTES);
        } else if (config.deletesOldSegments()) {
            bySizeOrTime = byTimeThenSize(
                    segments,
                    highWatermark,
                    logEndOffset,
                    nowMs,
                    config.retentionMs(),
                    config.retentionBytes(),
                    (segment, next) -> true,
                    Reason.RETENTION_MS,
                    Reason.RETENTION_BYTES);
        }
        if (bySizeOrTime != null) {
            return bySizeOrTime;
        }
        List<LogSegment> belowStart = headWhile(
                segments, highWatermark, logEndOffset, (segment, next) -> next != null && next <= logStartOffset);
        return belowStart.isEmpty() ? null : new Plan(belowStart, Reason.LOG_START_OFFSET);
    }

    /** Head segments {@code eligible} and older than {@code retentionMs}; failing that, beyond {@code retentionBytes}. */
    private static Plan byTimeThenSize(
            NavigableMap<Long, LogSegment> segments,
            long highWatermark,
            long logEndOffset,
            long nowMs,
            long retentionMs,
            long retentionBytes,
            Rule eligible,
            Reason timeReason,
            Reason sizeReason)
            throws IOException {
        if (retentionMs != LogConfig.UNLIMITED) {
            List<LogSegment> byTime = headWhile(
                    segments,
                    highWatermark,
                    logEndOffset,
                    (segment, next) ->
                            eligible.deletes(segment, next) && nowMs - segment.largestTimestampMs() > retentionMs);
            if (!byTime.isEmpty()) {
                return new Plan(byTime, timeReason);
            }
        }
        long excessBytes = sizeBytes(segments) - retentionBytes;
        if (retentionBytes != LogConfig.UNLIMITED && excessBytes > 0) {
            long[] remainingExcess = {excessBytes};
            List<LogSegment> bySize = headWhile(segments, highWatermark, logEndOffset, (segment, next) -> {
                if (!eligible.deletes(segment, next) || remainingExcess[0] - segment.sizeBytes() < 0) {
                    return false;
                }
                remainingExcess[0] -= segment.sizeBytes();
                return true;
            });
            if (!bySize.isEmpty()) {
                return new Plan(bySize, sizeReason);
            }
        }
        return null;
    }

    static long sizeBytes(NavigableMap<Long, LogSegment> segments) {
        long total = 0;
        for (LogSegment segment : segments.values()) {
            total += segment.sizeBytes();
        }
        return total;
    }

    private static List<LogSegment> headWhile(
            NavigableMap<Long, LogSegment> segments, long highWatermark, long logEndOffset, Rule rule)
            throws IOException {
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

package io.varve.tiered.manager;

import io.varve.storage.LogConfig;
import io.varve.storage.RolledSegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Which rolled segments of a partition to upload next. Pure: the remote log manager passes in what it read.
 * A segment qualifies when it holds offsets above the highest copied one and all its offsets lie below the upload
 * limit (the high watermark; after the exactly-once merge also the last stable offset). The active segment never
 * appears here: only rolled segments are offered. Segments go in offset order and the list stops at the first one
 * that does not qualify, so a later segment is never uploaded before an earlier one.
 *
 * <p>Compacted topics (see the module README): a segment also needs to lie wholly below the offset up to which the
 * cleaner has deduplicated the log and to be older than {@code min.compaction.lag.ms}, so the uploaded copy is the
 * compacted one and the cleaner never needs to rewrite it.
 */
final class UploadPlanner {

    /** Limit passed for a log that is not compacted. */
    static final long NOT_COMPACTED = Long.MAX_VALUE;

    private UploadPlanner() {}

    /**
     * @param rolled              the log's rolled segments, oldest first
     * @param highestCopiedOffset the highest offset already in remote storage, or -1
     * @param uploadLimitOffset   offsets at or above it must not be uploaded yet (exclusive)
     * @param cleanedUpToOffset   compacted logs: offsets below it were deduplicated by the cleaner; else
     *                            {@link #NOT_COMPACTED}
     */
    static List<RolledSegment> segmentsToUpload(
            List<RolledSegment> rolled,
            long highestCopiedOffset,
            long uploadLimitOffset,
            long cleanedUpToOffset,
            LogConfig config,
            long nowMs) {
        List<RolledSegment> result = new ArrayList<>();
        for (RolledSegment segment : rolled) {
            if (segment.endOffset() <= highestCopiedOffset) {
                continue;
            }
            if (segment.endOffset() >= uploadLimitOffset
                    || !compactionAllows(segment, cleanedUpToOffset, config, nowMs)) {
                break;
            }
            result.add(segment);
        }
        return result;
    }

    private static boolean compactionAllows(
            RolledSegment segment, long cleanedUpToOffset, LogConfig config, long nowMs) {
        if (cleanedUpToOffset == NOT_COMPACTED) {
            return true;
        }
        boolean cleaned = segment.endOffset() < cleanedUpToOffset;
        boolean pastMinLag = config.minCompactionLagMs() == 0
                || (segment.maxTimestampMs() >= 0 && nowMs - segment.maxTimestampMs() >= config.minCompactionLagMs());
        return cleaned && pastMinLag;
    }

    /** Bytes and count of rolled segments not uploaded yet (what a lag metric reports). */
    static UploadLag lag(List<RolledSegment> rolled, long highestCopiedOffset) {
        long bytes = 0;
        int segments = 0;
        for (RolledSegment segment : rolled) {
            if (segment.endOffset() > highestCopiedOffset) {
                bytes += segment.sizeBytes();
                segments++;
            }
        }
        return new UploadLag(bytes, segments);
    }
}

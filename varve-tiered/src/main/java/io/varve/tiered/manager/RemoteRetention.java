package io.varve.tiered.manager;

import io.varve.storage.LogConfig;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import java.util.ArrayList;
import java.util.List;

/**
 * Which remote segments of a tiered partition to delete, oldest first. Pure. Rules, in order:
 * <ul>
 *   <li>below the log start offset: DeleteRecords (or an earlier pass) moved the start past the segment's end;</li>
 *   <li>{@code retention.ms}: the segment's largest timestamp is more than retention.ms before now;</li>
 *   <li>{@code retention.bytes}: the whole log, remote segments plus the local bytes not uploaded yet, stays at
 *       least retention.bytes large without the segment.</li>
 * </ul>
 * The last two apply only when cleanup.policy contains delete, and each stops at the first segment it keeps, so
 * deletion is always a prefix. They move the log start offset past the last segment they delete.
 */
final class RemoteRetention {

    /** One remote segment to delete and why. */
    record Deletion(RemoteSegmentMetadata segment, String reason) {}

    /** The segments to delete and the log start offset once they are gone (never lower than now). */
    record Plan(List<Deletion> deletions, long newLogStartOffset) {
        boolean isEmpty() {
            return deletions.isEmpty();
        }
    }

    private RemoteRetention() {}

    /**
     * @param copied           the partition's COPY_SEGMENT_FINISHED segments, by start offset
     * @param localOnlyBytes   bytes of local segments not in remote storage (they count towards retention.bytes)
     */
    static Plan plan(
            List<RemoteSegmentMetadata> copied,
            long logStartOffset,
            LogConfig config,
            long nowMs,
            long localOnlyBytes) {
        List<Deletion> deletions = new ArrayList<>();
        List<RemoteSegmentMetadata> kept = new ArrayList<>();
        for (RemoteSegmentMetadata segment : copied) {
            if (segment.endOffset() < logStartOffset) {
                deletions.add(new Deletion(segment, "log start offset " + logStartOffset));
            } else {
                kept.add(segment);
            }
        }
        long newLogStart = logStartOffset;
        if (config.deletesOldSegments()) {
            int next = 0;
            if (config.retentionMs() != LogConfig.UNLIMITED) {
                while (next < kept.size() && nowMs - kept.get(next).maxTimestampMs() > config.retentionMs()) {
                    deletions.add(new Deletion(kept.get(next), "retention.ms " + config.retentionMs()));
                    newLogStart = Math.max(newLogStart, kept.get(next).endOffset() + 1);
                    next++;
                }
            }
            if (config.retentionBytes() != LogConfig.UNLIMITED) {
                long totalBytes = localOnlyBytes;
                for (int i = next; i < kept.size(); i++) {
                    totalBytes += kept.get(i).segmentSizeBytes();
                }
                while (next < kept.size()
                        && totalBytes - kept.get(next).segmentSizeBytes() >= config.retentionBytes()) {
                    totalBytes -= kept.get(next).segmentSizeBytes();
                    deletions.add(new Deletion(kept.get(next), "retention.bytes " + config.retentionBytes()));
                    newLogStart = Math.max(newLogStart, kept.get(next).endOffset() + 1);
                    next++;
                }
            }
        }
        return new Plan(deletions, newLogStart);
    }
}

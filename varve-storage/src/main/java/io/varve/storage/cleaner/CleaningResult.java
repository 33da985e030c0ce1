package io.varve.storage.cleaner;

import org.apache.kafka.common.TopicPartition;

/**
 * What one cleaning pass did to one log.
 *
 * @param firstDirtyOffset           the cleaner checkpoint before the pass
 * @param endOffset                  the checkpoint after it: every offset below was deduplicated
 * @param earliestTombstoneHorizonMs when the earliest kept tombstone may go, or Long.MAX_VALUE without one
 */
public record CleaningResult(
        TopicPartition topicPartition,
        long firstDirtyOffset,
        long endOffset,
        int segmentsBefore,
        int segmentsAfter,
        long bytesBefore,
        long bytesAfter,
        long recordsRead,
        long recordsKept,
        long earliestTombstoneHorizonMs,
        long durationMs) {}

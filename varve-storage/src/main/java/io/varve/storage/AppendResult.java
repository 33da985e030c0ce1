package io.varve.storage;

/**
 * Outcome of {@link PartitionLog#appendAsLeader}.
 *
 * @param baseOffset      offset assigned to the first record of the first batch
 * @param lastOffset      offset assigned to the last record of the last batch
 * @param logAppendTimeMs the broker time written into the batches, or -1 unless the log uses LogAppendTime
 * @param logStartOffset  the log start offset at the time of the append
 * @param duplicate       true for an idempotent retry: nothing was appended, offsets are the original ones
 */
public record AppendResult(
        long baseOffset, long lastOffset, long logAppendTimeMs, long logStartOffset, boolean duplicate) {

    public static final long NO_TIMESTAMP = -1L;
}

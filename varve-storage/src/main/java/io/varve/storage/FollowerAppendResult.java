package io.varve.storage;

/**
 * Outcome of {@link PartitionLog#appendAsFollower}: which whole batches of the leader's set were appended, with
 * the offsets the leader gave them.
 *
 * @param firstOffset  base offset of the first appended batch, or -1 when none was
 * @param lastOffset   last offset of the last appended batch, or -1 when none was
 * @param batchCount   how many batches were appended
 * @param validBytes   how many bytes of the set they took: the rest, if any, is a batch cut short by the fetch's
 *                     byte limit, which the next fetch brings whole
 * @param logEndOffset the log end offset afterwards
 */
public record FollowerAppendResult(
        long firstOffset, long lastOffset, int batchCount, int validBytes, long logEndOffset) {

    static FollowerAppendResult nothing(long logEndOffset) {
        return new FollowerAppendResult(-1, -1, 0, 0, logEndOffset);
    }

    public boolean appendedNothing() {
        return batchCount == 0;
    }
}

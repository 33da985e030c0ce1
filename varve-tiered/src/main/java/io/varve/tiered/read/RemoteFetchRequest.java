package io.varve.tiered.read;

import io.varve.tiered.metadata.TopicIdPartition;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A fetch of one partition served from remote storage.
 *
 * @param fetchOffset       the first offset wanted; the answer starts with the batch holding it
 * @param maxBytes          bytes of whole batches at most, except under {@code minOneBatch}
 * @param minOneBatch       return the first batch even when it is larger than {@code maxBytes} (Kafka's rule for the
 *                          first partition of a fetch with data, so that a large batch cannot block a consumer)
 * @param leaderEpoch       the leader epoch the local lineage gives {@code fetchOffset}, to pick the segment written in
 *                          that epoch when copies of several leaders exist; empty when unknown
 * @param logStartOffset    the partition's log start offset: no batch wholly below it is served
 */
public record RemoteFetchRequest(
        TopicIdPartition partition,
        long fetchOffset,
        int maxBytes,
        boolean minOneBatch,
        OptionalInt leaderEpoch,
        long logStartOffset) {
    public RemoteFetchRequest {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(leaderEpoch, "leaderEpoch");
        if (fetchOffset < 0 || maxBytes < 0) {
            throw new IllegalArgumentException(
                    "bad remote fetch of " + partition + " at " + fetchOffset + " for " + maxBytes + " bytes");
        }
    }
}

package io.varve.coordinator.txn;

import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * What the coordinator knows about one transactional id; immutable, replaced on every transition.
 * {@code lastProducerId}/{@code lastEpoch} are the previous identity (-1 when none), kept for retries.
 * {@code txnStartMs} is -1 unless a transaction is open.
 */
public record TxnMetadata(
        String transactionalId,
        long producerId,
        long lastProducerId,
        short epoch,
        short lastEpoch,
        int timeoutMs,
        TxnState state,
        Set<TopicPartition> partitions,
        long txnStartMs,
        long lastUpdateMs) {
    public TxnMetadata {
        if (transactionalId == null || transactionalId.isEmpty()) {
            throw new IllegalArgumentException("a transactional id is required");
        }
        partitions = Set.copyOf(partitions);
        if (state == TxnState.ONGOING && partitions.isEmpty()) {
            throw new IllegalStateException(transactionalId + ": an ongoing transaction has partitions");
        }
    }

    TxnMetadata withState(TxnState newState, long nowMs) {
        return new TxnMetadata(
                transactionalId,
                producerId,
                lastProducerId,
                epoch,
                lastEpoch,
                timeoutMs,
                newState,
                partitions,
                txnStartMs,
                nowMs);
    }
}

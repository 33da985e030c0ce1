package io.varve.coordinator.txn;

import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * What the coordinator knows about one transactional id; immutable, replaced on every transition.
 * {@code lastProducerId}/{@code lastEpoch} are the previous identity (-1 when none), kept for retries.
 * {@code txnStartMs} is -1 unless a transaction is open. {@code nextProducerId} is -1 except while a transactions v2
 * commit or abort whose epoch bump used up the epochs completes: the producer id the client continues with (at epoch
 * 0) once the markers, written with the old id, are in.
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
        long lastUpdateMs,
        long nextProducerId) {
    /** Metadata without a producer id rotation pending. */
    public TxnMetadata(
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
        this(
                transactionalId,
                producerId,
                lastProducerId,
                epoch,
                lastEpoch,
                timeoutMs,
                state,
                partitions,
                txnStartMs,
                lastUpdateMs,
                -1);
    }

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
                nowMs,
                nextProducerId);
    }
}

package io.varve.broker.group;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/** What the group coordinator asks the transaction coordinator before staging transactional offsets. */
public interface TransactionVerifier {
    /**
     * NONE when {@code partition} is in the ongoing transaction of the producer (id and epoch current), else
     * Kafka's error: INVALID_TXN_STATE, PRODUCER_FENCED, INVALID_PRODUCER_EPOCH, INVALID_PRODUCER_ID_MAPPING,
     * NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS.
     */
    CompletableFuture<Errors> verifyInTransaction(
            String transactionalId, long producerId, short producerEpoch, TopicPartition partition);

    /**
     * Transactions v2 (TxnOffsetCommit v5+, no AddOffsetsToTxn before it): adds {@code partition} to the producer's
     * transaction; the same errors, CONCURRENT_TRANSACTIONS while the previous transaction completes.
     */
    default CompletableFuture<Errors> addToTransaction(
            String transactionalId, long producerId, short producerEpoch, TopicPartition partition) {
        return verifyInTransaction(transactionalId, producerId, producerEpoch, partition);
    }
}

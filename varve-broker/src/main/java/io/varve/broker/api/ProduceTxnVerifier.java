package io.varve.broker.api;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * What the partition leader asks the transaction coordinator before a transactional write starts the producer's
 * transaction in a partition (KIP-890): whether the partition is in the producer's ongoing transaction ({@code add}
 * false: AddPartitionsToTxn {@code verifyOnly}, transaction version 1 clients), or to add it (transactions v2, Produce
 * v12: the client sends no AddPartitionsToTxn of its own). NONE, or the coordinator's error.
 */
public interface ProduceTxnVerifier {
    CompletableFuture<Errors> verify(
            String transactionalId, long producerId, short producerEpoch, TopicPartition partition, boolean add);
}

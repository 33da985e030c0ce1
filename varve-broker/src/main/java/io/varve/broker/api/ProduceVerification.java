package io.varve.broker.api;

import io.varve.broker.replica.Partition;
import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.producer.VerificationGuard;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The leader's side of KIP-890 for one partition of a Produce request: a transactional batch of a producer whose
 * transaction is not yet open in the partition is appended only after the transaction coordinator confirmed (or, with
 * Produce v12, made) the partition part of that transaction, and only with the {@link VerificationGuard} taken before
 * asking: a marker that ends the transaction in between makes the append fail instead of leaving a hanging
 * transaction. Errors reach the client as Kafka maps them: the coordinator's retriable ones as NOT_ENOUGH_REPLICAS
 * (clients retry the produce without refreshing metadata), PRODUCER_FENCED as INVALID_PRODUCER_EPOCH, and a partition
 * not in the transaction as INVALID_PRODUCER_EPOCH before Produce v12 (abortable for those clients) and
 * TRANSACTION_ABORTABLE from v12.
 */
final class ProduceVerification {
    /** Transactions v2 (KIP-890 part 2): the client no longer adds partitions; the leader does. */
    static final short FIRST_IMPLICIT_ADD_VERSION = 12;

    private ProduceVerification() {}

    /** A transactional write's producer, read from the first batch's header; empty for other writes. */
    record Writer(long producerId, short producerEpoch) {}

    static Optional<Writer> transactionalWriter(String transactionalId, ByteBuffer records) {
        if (transactionalId == null || records.remaining() < RecordBatchV2.HEADER_SIZE_BYTES) {
            return Optional.empty();
        }
        int start = records.position();
        short attributes = records.getShort(start + RecordBatchV2.ATTRIBUTES_OFFSET);
        if ((attributes & RecordBatchV2.TRANSACTIONAL_MASK) == 0) {
            return Optional.empty();
        }
        return Optional.of(new Writer(
                records.getLong(start + RecordBatchV2.PRODUCER_ID_OFFSET),
                records.getShort(start + RecordBatchV2.PRODUCER_EPOCH_OFFSET)));
    }

    /**
     * The guard to append with once the future completes with NONE; the future completes with the error to answer
     * otherwise. Completes at once with {@link VerificationGuard#UNVERIFIED} when the producer's transaction is open
     * in the partition already.
     */
    static CompletableFuture<Result> verify(
            ProduceTxnVerifier verifier,
            String transactionalId,
            Writer writer,
            Partition partition,
            TopicPartition tp,
            short produceVersion) {
        Optional<VerificationGuard> guard =
                partition.log().startTransactionVerification(writer.producerId(), writer.producerEpoch());
        if (guard.isEmpty()) {
            return CompletableFuture.completedFuture(new Result(Errors.NONE, VerificationGuard.UNVERIFIED));
        }
        boolean add = produceVersion >= FIRST_IMPLICIT_ADD_VERSION;
        return verifier.verify(transactionalId, writer.producerId(), writer.producerEpoch(), tp, add)
                .handle((error, e) -> e != null
                        ? new Result(Errors.NOT_ENOUGH_REPLICAS, null)
                        : error == Errors.NONE
                                ? new Result(Errors.NONE, guard.get())
                                : new Result(toClient(error, produceVersion), null));
    }

    record Result(Errors error, VerificationGuard guard) {}

    /** The error a produce answers for a coordinator's verification error. */
    static Errors toClient(Errors error, short produceVersion) {
        return switch (error) {
            case CONCURRENT_TRANSACTIONS,
                    NETWORK_EXCEPTION,
                    COORDINATOR_LOAD_IN_PROGRESS,
                    COORDINATOR_NOT_AVAILABLE,
                    NOT_COORDINATOR,
                    REQUEST_TIMED_OUT -> Errors.NOT_ENOUGH_REPLICAS;
            case PRODUCER_FENCED -> Errors.INVALID_PRODUCER_EPOCH;
            case INVALID_TXN_STATE, TRANSACTION_ABORTABLE -> notInTransaction(produceVersion);
            default -> error;
        };
    }

    /** A write the partition's producer state refused for want of verification, or the coordinator's "not in it". */
    static Errors notInTransaction(short produceVersion) {
        return produceVersion >= FIRST_IMPLICIT_ADD_VERSION
                ? Errors.TRANSACTION_ABORTABLE
                : Errors.INVALID_PRODUCER_EPOCH;
    }
}

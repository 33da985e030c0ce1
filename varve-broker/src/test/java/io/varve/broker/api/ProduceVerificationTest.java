package io.varve.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

class ProduceVerificationTest {
    @Test
    void theCoordinatorsRetriableErrorsReachTheClientAsNotEnoughReplicasAndFencingAsAnEpochError() {
        for (Errors e : new Errors[] {
            Errors.CONCURRENT_TRANSACTIONS,
            Errors.COORDINATOR_LOAD_IN_PROGRESS,
            Errors.COORDINATOR_NOT_AVAILABLE,
            Errors.NOT_COORDINATOR
        }) {
            assertThat(ProduceVerification.toClient(e, (short) 11)).isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
            assertThat(ProduceVerification.toClient(e, (short) 12)).isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
        }
        assertThat(ProduceVerification.toClient(Errors.PRODUCER_FENCED, (short) 12))
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(ProduceVerification.toClient(Errors.INVALID_PRODUCER_ID_MAPPING, (short) 12))
                .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
    }

    @Test
    void aPartitionNotInTheTransactionIsAnEpochErrorBeforeV12AndTransactionAbortableFromIt() {
        assertThat(ProduceVerification.toClient(Errors.INVALID_TXN_STATE, (short) 11))
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(ProduceVerification.toClient(Errors.INVALID_TXN_STATE, (short) 12))
                .isEqualTo(Errors.TRANSACTION_ABORTABLE);
        assertThat(ProduceVerification.toClient(Errors.INVALID_TXN_STATE, (short) 13))
                .isEqualTo(Errors.TRANSACTION_ABORTABLE);
    }

    @Test
    void onlyATransactionalBatchOfATransactionalRequestIsVerified() {
        ByteBuffer transactional = MemoryRecords.withTransactionalRecords(
                        Compression.NONE, 42L, (short) 3, 0, new SimpleRecord("v".getBytes()))
                .buffer();
        ByteBuffer idempotent = MemoryRecords.withIdempotentRecords(
                        Compression.NONE, 42L, (short) 3, 0, new SimpleRecord("v".getBytes()))
                .buffer();

        assertThat(ProduceVerification.transactionalWriter("t", transactional))
                .contains(new ProduceVerification.Writer(42L, (short) 3));
        assertThat(ProduceVerification.transactionalWriter(null, transactional)).isEmpty();
        assertThat(ProduceVerification.transactionalWriter("t", idempotent)).isEmpty();
    }
}

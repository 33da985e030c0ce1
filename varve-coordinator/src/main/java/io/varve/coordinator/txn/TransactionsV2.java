package io.varve.coordinator.txn;

import io.varve.coordinator.txn.TxnApi.EndTxnResponse;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;

/**
 * The epoch rules of transactions v2 (KIP-890 part 2), pure: the coordinator ends every transaction with an epoch
 * bump, so the markers carry an epoch newer than any write of the transaction and the producer continues at that new
 * epoch (or, when the epochs are used up, with a new producer id at epoch 0). A request of the ended transaction that
 * comes again (the client retried EndTxn after a lost response) still names the old identity: it is recognised from
 * the previous epoch kept in the metadata and answered as the first one was, while any other request at an older
 * epoch is fenced, so a delayed EndTxn or produce of an earlier transaction can never end or join a later one.
 */
final class TransactionsV2 {
    private TransactionsV2() {}

    /** The last epoch a producer id may use; a bump beyond it moves to a new producer id. */
    static final short LAST_USABLE_EPOCH = Short.MAX_VALUE - 1;

    /** Whether a bump from {@code m}'s epoch uses up the epochs (the client then continues with a new producer id). */
    static boolean bumpExhaustsEpochs(TxnMetadata m) {
        return m.epoch() + 1 >= LAST_USABLE_EPOCH;
    }

    /**
     * Whether EndTxn from {@code producerId}/{@code epoch} repeats the EndTxn that ended {@code m}'s last transaction
     * (prepared or complete, at the epoch after {@code epoch}, or already on the rotated producer id).
     */
    static boolean isRetryOfEnded(TxnMetadata m, long producerId, short epoch) {
        boolean ended = m.state().isPrepare() || m.state().isComplete();
        if (!ended || epoch < 0 || m.lastEpoch() != epoch) {
            return false;
        }
        if (m.producerId() == producerId && m.epoch() == epoch + 1) {
            return true;
        }
        return m.state().isComplete() && m.lastProducerId() == producerId && m.epoch() == 0;
    }

    /** The answer to a retried EndTxn: the same decision is acknowledged, the other one refused. */
    static EndTxnResponse answerRetry(TxnMetadata m, boolean commit) {
        boolean committed = m.state() == TxnState.PREPARE_COMMIT || m.state() == TxnState.COMPLETE_COMMIT;
        if (committed == commit) {
            return continueWith(m);
        }
        // Committing what was aborted (by the client, or by the coordinator on timeout) can only be aborted now.
        return EndTxnResponse.error(committed ? Errors.INVALID_TXN_STATE : Errors.TRANSACTION_ABORTABLE);
    }

    /** The identity the producer continues with after {@code m}'s transaction ended. */
    static EndTxnResponse continueWith(TxnMetadata m) {
        return m.nextProducerId() >= 0
                ? new EndTxnResponse(Errors.NONE, m.nextProducerId(), (short) 0)
                : new EndTxnResponse(Errors.NONE, m.producerId(), m.epoch());
    }

    /**
     * {@code m} ending in {@code state} (PREPARE_COMMIT, PREPARE_ABORT, or COMPLETE_ABORT for a transaction that
     * reached no partition) at the next epoch; {@code nextProducerId} is the id to continue with when the bump used up
     * the epochs, else -1.
     */
    static TxnMetadata endWithBump(TxnMetadata m, TxnState state, long nextProducerId, long nowMs) {
        boolean prepared = state.isPrepare();
        return new TxnMetadata(
                m.transactionalId(),
                m.producerId(),
                m.lastProducerId(),
                (short) (m.epoch() + 1),
                m.epoch(),
                m.timeoutMs(),
                state,
                prepared ? m.partitions() : Set.of(),
                prepared ? m.txnStartMs() : -1,
                nowMs,
                nextProducerId);
    }

    /** {@code m} completed in {@code state}: on the rotated producer id at epoch 0 when one is pending. */
    static TxnMetadata completed(TxnMetadata m, TxnState state, long nowMs) {
        if (m.nextProducerId() < 0) {
            return new TxnMetadata(
                    m.transactionalId(),
                    m.producerId(),
                    m.lastProducerId(),
                    m.epoch(),
                    m.lastEpoch(),
                    m.timeoutMs(),
                    state,
                    Set.of(),
                    -1,
                    nowMs);
        }
        return new TxnMetadata(
                m.transactionalId(),
                m.nextProducerId(),
                m.producerId(),
                (short) 0,
                m.lastEpoch(),
                m.timeoutMs(),
                state,
                Set.of(),
                -1,
                nowMs);
    }
}

package io.varve.storage.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.junit.jupiter.api.Test;

/** KIP-890 part 1 in the producer state: the guard a verified transactional write must still hold. */
class ProducerVerificationGuardTest {
    private static final long PID = 7;
    private final ProducerStateManager state = new ProducerStateManager();
    private long nextOffset;

    private void appendTxn(short epoch, int firstSeq, VerificationGuard guard) {
        ProducerStateManager.PendingAppend pending = state.beginAppend(guard);
        pending.check(PID, epoch, new BatchMetadata(firstSeq, firstSeq, nextOffset, nextOffset, 0L), true);
        pending.commit();
        nextOffset++;
    }

    private void marker(short epoch, boolean commit) {
        ProducerStateManager.PendingAppend pending = state.beginAppend();
        pending.checkMarker(PID, epoch, 0, commit, nextOffset++, 0L);
        pending.commit();
    }

    @Test
    void aVerifiedWriteStartsTheTransactionAndLaterWritesNeedNoGuard() {
        VerificationGuard guard = state.startVerification(PID, (short) 0).orElseThrow();
        appendTxn((short) 0, 0, guard);
        assertThat(state.verificationGuard(PID)).isEmpty();
        assertThat(state.startVerification(PID, (short) 0)).isEmpty();
        appendTxn((short) 0, 1, VerificationGuard.UNVERIFIED);
        assertThat(state.entry(PID).orElseThrow().hasOngoingTxn()).isTrue();
    }

    @Test
    void aWriteVerifiedBeforeAnAbortMarkerCannotStartAHangingTransactionAfterIt() {
        VerificationGuard guard = state.startVerification(PID, (short) 0).orElseThrow();
        // the coordinator said yes, then the transaction was aborted before the write reached the log
        marker((short) 0, false);
        assertThatThrownBy(() -> appendTxn((short) 0, 0, guard)).isInstanceOf(InvalidTxnStateException.class);
        assertThat(state.firstUnstableOffset()).isEqualTo(ProducerStateEntry.NO_TXN);
    }

    @Test
    void aWriteThatAskedNothingBecauseTheTransactionWasOpenIsRefusedOnceItEnded() {
        appendTxn((short) 0, 0, state.startVerification(PID, (short) 0).orElseThrow());
        marker((short) 0, true);
        assertThatThrownBy(() -> appendTxn((short) 0, 1, VerificationGuard.UNVERIFIED))
                .isInstanceOf(InvalidTxnStateException.class);
    }

    @Test
    void aGuardOfAnOlderEpochAdmitsNothingAfterABump() {
        VerificationGuard old = state.startVerification(PID, (short) 0).orElseThrow();
        VerificationGuard bumped = state.startVerification(PID, (short) 1).orElseThrow();
        assertThat(bumped).isNotSameAs(old);
        assertThatThrownBy(() -> appendTxn((short) 0, 0, old)).isInstanceOf(InvalidTxnStateException.class);
        appendTxn((short) 1, 0, bumped);
    }

    @Test
    void appendsWithoutVerificationAreNotChecked() {
        ProducerStateManager.PendingAppend pending = state.beginAppend();
        pending.check(PID, (short) 0, new BatchMetadata(0, 0, 0, 0, 0L), true);
        pending.commit();
        assertThat(state.entry(PID).orElseThrow().hasOngoingTxn()).isTrue();
    }
}

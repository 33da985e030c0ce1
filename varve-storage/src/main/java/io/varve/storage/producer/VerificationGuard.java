package io.varve.storage.producer;

/**
 * Proof that the partition leader asked the transaction coordinator whether a producer's transaction includes this
 * partition (KIP-890 part 1), handed out by {@link ProducerStateManager#startVerification} before the question and
 * required, by identity, when the batch that starts the producer's transaction here is appended. A transaction marker
 * or an epoch bump of the producer in between forgets the guard, so a write that was verified for a transaction that
 * has since ended cannot start a new, hanging one. {@link #UNVERIFIED} is what an append passes when it asked nothing
 * because the producer's transaction was already open here: should it have ended meanwhile, the append is refused.
 */
public final class VerificationGuard {
    /** No question was asked: the append is valid only inside a transaction already open in this partition. */
    public static final VerificationGuard UNVERIFIED = new VerificationGuard(-1, (short) -1);

    private final long producerId;
    private final short producerEpoch;

    VerificationGuard(long producerId, short producerEpoch) {
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
    }

    public long producerId() {
        return producerId;
    }

    public short producerEpoch() {
        return producerEpoch;
    }

    @Override
    public String toString() {
        return this == UNVERIFIED
                ? "VerificationGuard(unverified)"
                : "VerificationGuard(producer " + producerId + " epoch " + producerEpoch + ")";
    }
}

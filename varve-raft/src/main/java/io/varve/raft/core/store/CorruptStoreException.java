package io.varve.raft.core.store;

/**
 * Data on disk that was durable and is now wrong (a bad CRC before the tail, a gap between segments,
 * offsets out of order, a snapshot whose checksum fails). Never repaired silently: an operator must look,
 * or the replica must be rebuilt from its peers.
 */
public final class CorruptStoreException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public CorruptStoreException(String message) {
        super(message);
    }
}

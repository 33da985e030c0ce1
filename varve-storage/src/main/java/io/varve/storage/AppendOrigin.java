package io.varve.storage;

/**
 * Who writes an append. Clients may not write control batches; the transaction coordinator writes its
 * COMMIT and ABORT markers (control batches) through the same leader append.
 */
public enum AppendOrigin {
    /** A Produce request. */
    CLIENT,
    /** A coordinator of this broker: transaction markers (control batches) are accepted. */
    COORDINATOR
}

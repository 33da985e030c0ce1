package io.varve.raft;

/** The node was closed (or failed fatally) before the operation could complete. */
public final class RaftClosedException extends RaftException {

    private static final long serialVersionUID = 1L;

    public RaftClosedException(String message) {
        super(message);
    }

    public RaftClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}

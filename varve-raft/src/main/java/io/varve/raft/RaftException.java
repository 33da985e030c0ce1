package io.varve.raft;

/** Base class of the failures a {@link MetadataRaft} reports through its futures. */
public class RaftException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RaftException(String message) {
        super(message);
    }

    public RaftException(String message, Throwable cause) {
        super(message, cause);
    }
}

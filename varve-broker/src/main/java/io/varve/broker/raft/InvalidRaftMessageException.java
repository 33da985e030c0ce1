package io.varve.broker.raft;

/**
 * A Kafka message that cannot be a Raft message for {@code __cluster_metadata-0}: another topic or
 * partition, several of them, none. A transport answers the request with {@code INVALID_REQUEST}.
 */
public final class InvalidRaftMessageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InvalidRaftMessageException(String message) {
        super(message);
    }
}

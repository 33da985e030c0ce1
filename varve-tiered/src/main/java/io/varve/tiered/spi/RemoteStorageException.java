package io.varve.tiered.spi;

/**
 * A remote storage operation failed. {@link #retriable()} tells the caller whether the same call may succeed later
 * (network trouble, throttling, a 5xx from the server, a slow disk) or will fail again (bad credentials, missing
 * bucket, bad request) and needs an operator.
 */
public class RemoteStorageException extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean retriable;

    public RemoteStorageException(String message, boolean retriable) {
        super(message);
        this.retriable = retriable;
    }

    public RemoteStorageException(String message, Throwable cause, boolean retriable) {
        super(message, cause);
        this.retriable = retriable;
    }

    public boolean retriable() {
        return retriable;
    }
}

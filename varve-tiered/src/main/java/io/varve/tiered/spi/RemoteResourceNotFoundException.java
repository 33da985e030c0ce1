package io.varve.tiered.spi;

/** The object asked for does not exist (deleted segment, or an optional index never uploaded). Not retriable. */
public class RemoteResourceNotFoundException extends RemoteStorageException {
    private static final long serialVersionUID = 1L;

    public RemoteResourceNotFoundException(String message) {
        super(message, false);
    }

    public RemoteResourceNotFoundException(String message, Throwable cause) {
        super(message, cause, false);
    }
}

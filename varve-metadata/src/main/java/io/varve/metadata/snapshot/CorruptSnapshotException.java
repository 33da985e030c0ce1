package io.varve.metadata.snapshot;

/** A metadata snapshot that fails its checksum or cannot be decoded whole: it is never applied. */
public final class CorruptSnapshotException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public CorruptSnapshotException(String message) {
        super(message);
    }

    public CorruptSnapshotException(String message, Throwable cause) {
        super(message, cause);
    }
}

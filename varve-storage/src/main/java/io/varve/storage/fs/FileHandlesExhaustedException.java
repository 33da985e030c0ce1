package io.varve.storage.fs;

import java.io.IOException;

/** No descriptor could be had for a segment file: a retriable condition, never a disk fault. */
public final class FileHandlesExhaustedException extends IOException {
    public FileHandlesExhaustedException(String message) {
        super(message);
    }

    /** Thrown often under pressure and always handled: a stack trace would cost more than the fallback it causes. */
    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}

package io.varve.storage.segment;

import java.io.IOException;

/** A segment's bytes are not valid batches where they must be: disk damage, never to be served. */
public final class CorruptSegmentException extends IOException {

    public CorruptSegmentException(String message) {
        super(message);
    }
}

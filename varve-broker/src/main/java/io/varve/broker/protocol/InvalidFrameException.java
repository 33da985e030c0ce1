package io.varve.broker.protocol;

/** A frame that cannot be understood; the connection that sent it is closed. */
public final class InvalidFrameException extends RuntimeException {
    public InvalidFrameException(String message) {
        super(message);
    }
}

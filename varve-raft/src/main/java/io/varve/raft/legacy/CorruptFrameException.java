package io.varve.raft.legacy;

/** A frame on disk is incomplete or fails its checks; the log is never served past it. */
public final class CorruptFrameException extends Exception {

    private static final long serialVersionUID = 1L;

    public CorruptFrameException(String message) {
        super(message);
    }
}

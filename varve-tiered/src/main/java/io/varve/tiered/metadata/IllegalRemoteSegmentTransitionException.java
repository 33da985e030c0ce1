package io.varve.tiered.metadata;

/** An event that the segment lifecycle forbids (or that names a segment nobody added); nothing was changed. */
public class IllegalRemoteSegmentTransitionException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public IllegalRemoteSegmentTransitionException(String message) {
        super(message);
    }
}

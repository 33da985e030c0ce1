package io.varve.tiered.metadata;

/**
 * Lifecycle of a remote segment (KIP-405). Legal moves:
 * <pre>
 *   (none) ──► COPY_SEGMENT_STARTED ──► COPY_SEGMENT_FINISHED ──► DELETE_SEGMENT_STARTED ──► DELETE_SEGMENT_FINISHED
 *                      └──────────────────────────────────────────────►┘
 * </pre>
 * Re-applying the current state is legal too, so a retried write after a crash or fail-over is harmless.
 * A started copy may be abandoned straight into deletion (the upload failed or the leader changed).
 */
public enum RemoteSegmentState {
    COPY_SEGMENT_STARTED((byte) 0),
    COPY_SEGMENT_FINISHED((byte) 1),
    DELETE_SEGMENT_STARTED((byte) 2),
    DELETE_SEGMENT_FINISHED((byte) 3);

    private final byte id;

    RemoteSegmentState(byte id) {
        this.id = id;
    }

    /** Stable on-disk id; never reorder. */
    public byte id() {
        return id;
    }

    public static RemoteSegmentState forId(byte id) {
        for (RemoteSegmentState state : values()) {
            if (state.id == id) {
                return state;
            }
        }
        throw new IllegalArgumentException("unknown remote segment state id " + id);
    }

    /** Whether a segment in {@code from} (null: not known yet) may move to {@code to}. */
    public static boolean isLegalTransition(RemoteSegmentState from, RemoteSegmentState to) {
        if (to == null) {
            return false;
        }
        if (from == null) {
            return to == COPY_SEGMENT_STARTED;
        }
        if (from == to) {
            return true;
        }
        return switch (from) {
            case COPY_SEGMENT_STARTED -> to == COPY_SEGMENT_FINISHED || to == DELETE_SEGMENT_STARTED;
            case COPY_SEGMENT_FINISHED -> to == DELETE_SEGMENT_STARTED;
            case DELETE_SEGMENT_STARTED -> to == DELETE_SEGMENT_FINISHED;
            case DELETE_SEGMENT_FINISHED -> false;
        };
    }
}

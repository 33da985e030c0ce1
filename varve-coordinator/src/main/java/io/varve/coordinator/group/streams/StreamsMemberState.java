package io.varve.coordinator.group.streams;

/** Where a member is in converging to its target tasks. Persisted by ordinal: append only. */
public enum StreamsMemberState {
    /** Owns its whole target at the target epoch. */
    STABLE,
    /** Must give up active tasks first; stays at its epoch until it reports them gone. */
    UNREVOKED_TASKS,
    /** At the target epoch, waiting for tasks other members still own. */
    UNRELEASED_TASKS;

    static StreamsMemberState fromOrdinal(byte ordinal) {
        StreamsMemberState[] all = values();
        if (ordinal < 0 || ordinal >= all.length) {
            throw new IllegalArgumentException("unknown streams member state " + ordinal);
        }
        return all[ordinal];
    }
}

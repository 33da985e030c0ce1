package io.varve.coordinator.group.consumer;

/** Where a member is in converging to its target assignment. Persisted by ordinal: append only. */
public enum MemberState {
    /** Owns its whole target at the target epoch. */
    STABLE,
    /** Must give up partitions first; stays at its epoch until it reports them gone. */
    UNREVOKED_PARTITIONS,
    /** At the target epoch, waiting for partitions other members still own. */
    UNRELEASED_PARTITIONS;

    static MemberState fromOrdinal(byte ordinal) {
        MemberState[] all = values();
        if (ordinal < 0 || ordinal >= all.length) {
            throw new IllegalArgumentException("unknown member state " + ordinal);
        }
        return all[ordinal];
    }
}

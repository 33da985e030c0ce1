package io.varve.coordinator.group.classic;

/** Kafka's classic group states, with the names DescribeGroups and ListGroups report. */
public enum ClassicGroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    private final String displayName;

    ClassicGroupState(String displayName) {
        this.displayName = displayName;
    }

    public String displayName() {
        return displayName;
    }
}

package io.varve.coordinator.group;

/** The group protocols, named as Kafka names them in ListGroups. */
public enum GroupType {
    CLASSIC("Classic"),
    CONSUMER("Consumer"),
    SHARE("Share");

    private final String displayName;

    GroupType(String displayName) {
        this.displayName = displayName;
    }

    public String displayName() {
        return displayName;
    }
}

package io.varve.bench;

/** The two brokers compared, in the order every round runs them: Kafka first, then Varve. */
public enum BrokerKind {
    KAFKA("Kafka"),
    VARVE("Varve");

    private final String displayName;

    BrokerKind(String displayName) {
        this.displayName = displayName;
    }

    public String displayName() {
        return displayName;
    }

    public String dirName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}

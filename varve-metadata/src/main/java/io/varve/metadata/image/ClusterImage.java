package io.varve.metadata.image;

import io.varve.metadata.record.MetadataRecord;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/** Registered brokers by id. Immutable. */
public final class ClusterImage {

    public static final ClusterImage EMPTY = new ClusterImage(Map.of());

    private final Map<Integer, BrokerRegistration> brokers;
    private final List<Integer> sortedBrokerIds;

    ClusterImage(Map<Integer, BrokerRegistration> brokers) {
        TreeMap<Integer, BrokerRegistration> sorted = new TreeMap<>(brokers);
        this.brokers = Collections.unmodifiableMap(sorted);
        this.sortedBrokerIds = List.copyOf(sorted.keySet());
    }

    public Map<Integer, BrokerRegistration> brokers() {
        return brokers;
    }

    /** The broker with this id, or null. */
    public BrokerRegistration broker(int brokerId) {
        return brokers.get(brokerId);
    }

    /** Ids of the registered brokers in ascending order. */
    public List<Integer> brokerIds() {
        return sortedBrokerIds;
    }

    void writeRecords(Consumer<MetadataRecord> out) {
        brokers.values().forEach(broker -> out.accept(broker.toRecord()));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ClusterImage that && brokers.equals(that.brokers);
    }

    @Override
    public int hashCode() {
        return brokers.hashCode();
    }

    @Override
    public String toString() {
        return "ClusterImage(" + brokers.values() + ")";
    }
}

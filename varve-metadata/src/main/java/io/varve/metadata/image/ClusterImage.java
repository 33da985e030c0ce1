package io.varve.metadata.image;

import io.varve.metadata.record.MetadataRecord;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/** Registered brokers by id. Immutable. */
public final class ClusterImage {

    public static final ClusterImage EMPTY = new ClusterImage(Map.of(), 0);

    private final Map<Integer, BrokerRegistration> brokers;
    private final List<Integer> sortedBrokerIds;
    private final List<Integer> activeBrokerIds;
    private final long highestBrokerEpoch;

    ClusterImage(Map<Integer, BrokerRegistration> brokers, long highestBrokerEpoch) {
        TreeMap<Integer, BrokerRegistration> sorted = new TreeMap<>(brokers);
        this.brokers = Collections.unmodifiableMap(sorted);
        this.sortedBrokerIds = List.copyOf(sorted.keySet());
        this.activeBrokerIds = sorted.values().stream()
                .filter(BrokerRegistration::isActive)
                .map(BrokerRegistration::id)
                .toList();
        long highest = highestBrokerEpoch;
        for (BrokerRegistration broker : sorted.values()) {
            highest = Math.max(highest, broker.epoch());
        }
        this.highestBrokerEpoch = highest;
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

    /** Ids of the unfenced brokers not in controlled shutdown, ascending: where replicas and leaders may go. */
    public List<Integer> activeBrokerIds() {
        return activeBrokerIds;
    }

    /** True if the broker is registered, unfenced and not in controlled shutdown. */
    public boolean isActive(int brokerId) {
        BrokerRegistration broker = brokers.get(brokerId);
        return broker != null && broker.isActive();
    }

    /**
     * The highest broker epoch this image has seen, including brokers since unregistered (not part of
     * equality: a snapshot does not carry it, but its offset is above every epoch it forgot).
     */
    public long highestBrokerEpoch() {
        return highestBrokerEpoch;
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

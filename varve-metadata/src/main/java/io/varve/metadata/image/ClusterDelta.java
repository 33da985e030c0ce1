package io.varve.metadata.image;

import io.varve.metadata.record.RegisterBrokerRecord;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/** Broker registrations changed on top of a base {@link ClusterImage}. */
public final class ClusterDelta {

    private final ClusterImage base;
    private final Map<Integer, BrokerRegistration> changedBrokers = new HashMap<>();

    ClusterDelta(ClusterImage base) {
        this.base = base;
    }

    public ClusterImage base() {
        return base;
    }

    /** New registration of each broker that (re-)registered. */
    public Map<Integer, BrokerRegistration> changedBrokers() {
        return Collections.unmodifiableMap(changedBrokers);
    }

    void replay(RegisterBrokerRecord record) {
        changedBrokers.put(record.brokerId(), BrokerRegistration.fromRecord(record));
    }

    ClusterImage apply() {
        Map<Integer, BrokerRegistration> next = new HashMap<>(base.brokers());
        next.putAll(changedBrokers);
        return new ClusterImage(next);
    }
}

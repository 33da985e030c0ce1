package io.varve.metadata.image;

import io.varve.metadata.record.BrokerRegistrationChangeRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.metadata.record.UnregisterBrokerRecord;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Broker registrations changed on top of a base {@link ClusterImage}. Besides the new registrations
 * it tells a broker what it acts on: who was fenced, unfenced, entered controlled shutdown, or left.
 */
public final class ClusterDelta {

    private final ClusterImage base;
    /** New state of each touched broker; a null value means unregistered. */
    private final Map<Integer, BrokerRegistration> changedBrokers = new HashMap<>();

    private long highestBrokerEpoch;

    ClusterDelta(ClusterImage base) {
        this.base = base;
        this.highestBrokerEpoch = base.highestBrokerEpoch();
    }

    public ClusterImage base() {
        return base;
    }

    /** New registration of each broker that (re-)registered or changed state; unregistered ones are absent. */
    public Map<Integer, BrokerRegistration> changedBrokers() {
        Map<Integer, BrokerRegistration> present = new HashMap<>();
        changedBrokers.forEach((id, registration) -> {
            if (registration != null) {
                present.put(id, registration);
            }
        });
        return Collections.unmodifiableMap(present);
    }

    /** Brokers of the base image whose registration this delta removed. */
    public Set<Integer> unregisteredBrokers() {
        Set<Integer> removed = new TreeSet<>();
        changedBrokers.forEach((id, registration) -> {
            if (registration == null && base.broker(id) != null) {
                removed.add(id);
            }
        });
        return removed;
    }

    /** Brokers fenced now that were unfenced (or not registered) before. */
    public Set<Integer> newlyFenced() {
        return transitioned(BrokerRegistration::fenced);
    }

    /** Brokers unfenced now that were fenced (or not registered) before. */
    public Set<Integer> newlyUnfenced() {
        return transitioned(registration -> !registration.fenced());
    }

    /** Brokers in controlled shutdown now that were not before. */
    public Set<Integer> newlyInControlledShutdown() {
        return transitioned(BrokerRegistration::inControlledShutdown);
    }

    private Set<Integer> transitioned(Predicate<BrokerRegistration> state) {
        Set<Integer> ids = new TreeSet<>();
        changedBrokers.forEach((id, registration) -> {
            BrokerRegistration before = base.broker(id);
            if (registration != null && state.test(registration) && (before == null || !state.test(before))) {
                ids.add(id);
            }
        });
        return ids;
    }

    private BrokerRegistration current(int brokerId) {
        return changedBrokers.containsKey(brokerId) ? changedBrokers.get(brokerId) : base.broker(brokerId);
    }

    void replay(RegisterBrokerRecord record) {
        changedBrokers.put(record.brokerId(), BrokerRegistration.fromRecord(record));
        highestBrokerEpoch = Math.max(highestBrokerEpoch, record.brokerEpoch());
    }

    void replay(BrokerRegistrationChangeRecord record) {
        BrokerRegistration existing = current(record.brokerId());
        if (existing == null) {
            throw new IllegalStateException("change of unregistered broker " + record.brokerId());
        }
        changedBrokers.put(record.brokerId(), existing.withChange(record));
    }

    void replay(UnregisterBrokerRecord record) {
        BrokerRegistration existing = current(record.brokerId());
        if (existing == null || existing.epoch() != record.brokerEpoch()) {
            throw new IllegalStateException("cannot unregister broker " + record.brokerId() + " with epoch "
                    + record.brokerEpoch() + ": registered is " + existing);
        }
        changedBrokers.put(record.brokerId(), null);
    }

    ClusterImage apply() {
        Map<Integer, BrokerRegistration> next = new HashMap<>(base.brokers());
        changedBrokers.forEach((id, registration) -> {
            if (registration == null) {
                next.remove(id);
            } else {
                next.put(id, registration);
            }
        });
        return new ClusterImage(next, highestBrokerEpoch);
    }
}

package io.varve.metadata.image;

import io.varve.metadata.record.BrokerRegistrationChangeRecord;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.metadata.record.VersionRange;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * A registered broker as the cluster knows it. {@code rack} is null when unset.
 *
 * <p>Its lifecycle: registered fenced; unfenced once caught up with the metadata log; possibly in
 * controlled shutdown (unfenced, but no longer accepted as a leader or ISR member); fenced again on
 * a missed session or when its shutdown completes; finally unregistered.
 *
 * @param epoch the broker epoch, quoted back by the broker in heartbeats and AlterPartition
 */
public record BrokerRegistration(
        int id,
        Uuid incarnationId,
        long epoch,
        List<Endpoint> endpoints,
        String rack,
        Map<String, VersionRange> supportedFeatures,
        boolean fenced,
        boolean inControlledShutdown) {

    public BrokerRegistration {
        Objects.requireNonNull(incarnationId, "incarnationId");
        endpoints = List.copyOf(endpoints);
        supportedFeatures = Collections.unmodifiableMap(new TreeMap<>(supportedFeatures));
        if (fenced && inControlledShutdown) {
            throw new IllegalArgumentException("broker " + id + " cannot be fenced and in controlled shutdown");
        }
    }

    static BrokerRegistration fromRecord(RegisterBrokerRecord record) {
        return new BrokerRegistration(
                record.brokerId(),
                record.incarnationId(),
                record.brokerEpoch(),
                record.endpoints(),
                record.rack(),
                record.supportedFeatures(),
                record.fenced(),
                record.inControlledShutdown());
    }

    RegisterBrokerRecord toRecord() {
        return new RegisterBrokerRecord(
                id, incarnationId, epoch, endpoints, rack, supportedFeatures, fenced, inControlledShutdown);
    }

    /** This registration after the change; the record must name this registration's epoch. */
    BrokerRegistration withChange(BrokerRegistrationChangeRecord change) {
        if (change.brokerEpoch() != epoch) {
            throw new IllegalStateException("change of broker " + id + " names epoch " + change.brokerEpoch()
                    + " but the registration has epoch " + epoch);
        }
        boolean nowFenced = change.fenced().applyTo(fenced);
        boolean nowInControlledShutdown = change.inControlledShutdown().applyTo(inControlledShutdown);
        if (nowFenced && nowInControlledShutdown) {
            throw new IllegalStateException("broker " + id + " cannot be fenced and in controlled shutdown");
        }
        return new BrokerRegistration(
                id, incarnationId, epoch, endpoints, rack, supportedFeatures, nowFenced, nowInControlledShutdown);
    }

    /** True if the broker may lead partitions and join ISRs: unfenced and not shutting down. */
    public boolean isActive() {
        return !fenced && !inControlledShutdown;
    }

    public Optional<Endpoint> endpoint(String listenerName) {
        return endpoints.stream()
                .filter(e -> e.listenerName().equals(listenerName))
                .findFirst();
    }
}

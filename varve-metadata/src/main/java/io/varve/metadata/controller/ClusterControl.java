package io.varve.metadata.controller;

import io.varve.metadata.image.BrokerRegistration;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.RegisterBrokerRecord;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidRegistrationException;

/**
 * Broker registrations. Pure. A broker re-registering after a restart (new incarnation id)
 * replaces its previous registration; repeating an identical registration writes nothing.
 * Fencing and heartbeats come with multi-broker clusters.
 */
public final class ClusterControl {

    public ControllerResult<Void> registerBroker(MetadataImage image, RegisterBrokerRecord registration) {
        Objects.requireNonNull(registration, "registration");
        if (registration.incarnationId().equals(Uuid.ZERO_UUID)) {
            throw new InvalidRegistrationException("Broker " + registration.brokerId() + " has no incarnation id");
        }
        if (registration.endpoints().isEmpty()) {
            throw new InvalidRegistrationException("Broker " + registration.brokerId() + " registered no listener");
        }
        Set<String> listeners = new HashSet<>();
        for (Endpoint endpoint : registration.endpoints()) {
            if (!listeners.add(endpoint.listenerName())) {
                throw new InvalidRegistrationException("Broker " + registration.brokerId() + " registered listener "
                        + endpoint.listenerName() + " twice");
            }
        }
        BrokerRegistration existing = image.cluster().broker(registration.brokerId());
        if (existing != null
                && existing.incarnationId().equals(registration.incarnationId())
                && existing.endpoints().equals(registration.endpoints())
                && java.util.Objects.equals(existing.rack(), registration.rack())) {
            return ControllerResult.withoutRecords(null);
        }
        return ControllerResult.of(List.of(registration), null);
    }
}

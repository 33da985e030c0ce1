package io.varve.metadata.image;

import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.RegisterBrokerRecord;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/** A registered broker as the cluster knows it. {@code rack} is null when unset. */
public record BrokerRegistration(int id, Uuid incarnationId, List<Endpoint> endpoints, String rack) {

    public BrokerRegistration {
        Objects.requireNonNull(incarnationId, "incarnationId");
        endpoints = List.copyOf(endpoints);
    }

    static BrokerRegistration fromRecord(RegisterBrokerRecord record) {
        return new BrokerRegistration(record.brokerId(), record.incarnationId(), record.endpoints(), record.rack());
    }

    RegisterBrokerRecord toRecord() {
        return new RegisterBrokerRecord(id, incarnationId, endpoints, rack);
    }

    public Optional<Endpoint> endpoint(String listenerName) {
        return endpoints.stream()
                .filter(e -> e.listenerName().equals(listenerName))
                .findFirst();
    }
}

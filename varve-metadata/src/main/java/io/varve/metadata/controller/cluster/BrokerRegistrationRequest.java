package io.varve.metadata.controller.cluster;

import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.VersionRange;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * A BrokerRegistration request: who the broker is (id, incarnation, cluster), where clients reach it,
 * its rack (null for none) and the feature levels it supports.
 */
public record BrokerRegistrationRequest(
        int brokerId,
        String clusterId,
        Uuid incarnationId,
        List<Endpoint> listeners,
        String rack,
        Map<String, VersionRange> supportedFeatures) {

    public BrokerRegistrationRequest {
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(incarnationId, "incarnationId");
        listeners = List.copyOf(listeners);
        supportedFeatures = java.util.Collections.unmodifiableMap(new TreeMap<>(supportedFeatures));
    }
}

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
 * its rack (null for none), the feature levels it supports, and the broker epoch it had when it last
 * shut down cleanly (-1 if it did not, or does not know): a broker that cannot show it shut down cleanly
 * may have lost unflushed records, so it is no longer an eligible leader replica (KIP-966).
 */
public record BrokerRegistrationRequest(
        int brokerId,
        String clusterId,
        Uuid incarnationId,
        List<Endpoint> listeners,
        String rack,
        Map<String, VersionRange> supportedFeatures,
        long previousBrokerEpoch) {

    public BrokerRegistrationRequest {
        Objects.requireNonNull(clusterId, "clusterId");
        Objects.requireNonNull(incarnationId, "incarnationId");
        listeners = List.copyOf(listeners);
        supportedFeatures = java.util.Collections.unmodifiableMap(new TreeMap<>(supportedFeatures));
    }

    /** A registration that shows no clean shutdown. */
    public BrokerRegistrationRequest(
            int brokerId,
            String clusterId,
            Uuid incarnationId,
            List<Endpoint> listeners,
            String rack,
            Map<String, VersionRange> supportedFeatures) {
        this(brokerId, clusterId, incarnationId, listeners, rack, supportedFeatures, -1);
    }
}

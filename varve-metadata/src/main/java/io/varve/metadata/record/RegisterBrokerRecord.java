package io.varve.metadata.record;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * A broker registered (or re-registered after a restart, with a new incarnation id). Replaces any
 * earlier registration of the same broker id. {@code rack} may be null.
 *
 * <p>Version 0 (single-node Varve) carried id, incarnation, endpoints and rack only; it reads as
 * broker epoch 0, no supported features, unfenced. Version 1 adds the broker epoch (which the
 * broker quotes in heartbeats and AlterPartition), the supported feature ranges, and the fenced and
 * controlled-shutdown flags (a new registration starts fenced).
 *
 * @param supportedFeatures supported level range per feature name; kept sorted by name
 */
public record RegisterBrokerRecord(
        int brokerId,
        Uuid incarnationId,
        long brokerEpoch,
        List<Endpoint> endpoints,
        String rack,
        Map<String, VersionRange> supportedFeatures,
        boolean fenced,
        boolean inControlledShutdown)
        implements MetadataRecord {

    public RegisterBrokerRecord {
        if (brokerId < 0) {
            throw new IllegalArgumentException("brokerId must be >= 0: " + brokerId);
        }
        if (brokerEpoch < 0) {
            throw new IllegalArgumentException("brokerEpoch must be >= 0: " + brokerEpoch);
        }
        Objects.requireNonNull(incarnationId, "incarnationId");
        endpoints = List.copyOf(Objects.requireNonNull(endpoints, "endpoints"));
        supportedFeatures = java.util.Collections.unmodifiableMap(
                new TreeMap<>(Objects.requireNonNull(supportedFeatures, "supportedFeatures")));
    }

    /** A registration as version 0 wrote it: epoch 0, no supported features, unfenced. */
    public RegisterBrokerRecord(int brokerId, Uuid incarnationId, List<Endpoint> endpoints, String rack) {
        this(brokerId, incarnationId, 0, endpoints, rack, Map.of(), false, false);
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.REGISTER_BROKER;
    }
}

package io.varve.metadata.record;

import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A broker registered (or re-registered after a restart, with a new incarnation id). Replaces any
 * earlier registration of the same broker id. {@code rack} may be null.
 */
public record RegisterBrokerRecord(int brokerId, Uuid incarnationId, List<Endpoint> endpoints, String rack)
        implements MetadataRecord {

    public RegisterBrokerRecord {
        if (brokerId < 0) {
            throw new IllegalArgumentException("brokerId must be >= 0: " + brokerId);
        }
        Objects.requireNonNull(incarnationId, "incarnationId");
        endpoints = List.copyOf(Objects.requireNonNull(endpoints, "endpoints"));
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.REGISTER_BROKER;
    }
}

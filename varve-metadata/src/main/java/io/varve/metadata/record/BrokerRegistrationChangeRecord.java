package io.varve.metadata.record;

import java.util.Objects;

/**
 * Fences, unfences or puts into controlled shutdown the registration of {@code brokerId} whose
 * epoch is {@code brokerEpoch} (a change aimed at an older incarnation is a log inconsistency).
 * Fencing also ends a controlled shutdown, so a fenced broker is never "in controlled shutdown".
 */
public record BrokerRegistrationChangeRecord(
        int brokerId, long brokerEpoch, BrokerFlagChange fenced, BrokerFlagChange inControlledShutdown)
        implements MetadataRecord {

    public BrokerRegistrationChangeRecord {
        if (brokerId < 0) {
            throw new IllegalArgumentException("brokerId must be >= 0: " + brokerId);
        }
        Objects.requireNonNull(fenced, "fenced");
        Objects.requireNonNull(inControlledShutdown, "inControlledShutdown");
    }

    public static BrokerRegistrationChangeRecord fence(int brokerId, long brokerEpoch) {
        return new BrokerRegistrationChangeRecord(
                brokerId, brokerEpoch, BrokerFlagChange.SET, BrokerFlagChange.CLEARED);
    }

    public static BrokerRegistrationChangeRecord unfence(int brokerId, long brokerEpoch) {
        return new BrokerRegistrationChangeRecord(
                brokerId, brokerEpoch, BrokerFlagChange.CLEARED, BrokerFlagChange.UNCHANGED);
    }

    public static BrokerRegistrationChangeRecord enterControlledShutdown(int brokerId, long brokerEpoch) {
        return new BrokerRegistrationChangeRecord(
                brokerId, brokerEpoch, BrokerFlagChange.UNCHANGED, BrokerFlagChange.SET);
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.BROKER_REGISTRATION_CHANGE;
    }
}

package io.varve.metadata.record;

/** The registration of {@code brokerId} with epoch {@code brokerEpoch} was removed. */
public record UnregisterBrokerRecord(int brokerId, long brokerEpoch) implements MetadataRecord {

    public UnregisterBrokerRecord {
        if (brokerId < 0) {
            throw new IllegalArgumentException("brokerId must be >= 0: " + brokerId);
        }
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.UNREGISTER_BROKER;
    }
}

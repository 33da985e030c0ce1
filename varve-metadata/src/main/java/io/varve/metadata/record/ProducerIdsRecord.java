package io.varve.metadata.record;

/**
 * A block of producer ids was handed to {@code brokerId}; the next block starts at
 * {@code nextProducerId}. Ids below it are never handed out again.
 */
public record ProducerIdsRecord(int brokerId, long nextProducerId) implements MetadataRecord {

    public ProducerIdsRecord {
        if (nextProducerId < 0) {
            throw new IllegalArgumentException("nextProducerId must be >= 0: " + nextProducerId);
        }
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.PRODUCER_IDS;
    }
}

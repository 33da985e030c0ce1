package io.varve.metadata.record;

/**
 * The kinds of metadata record with their stable wire ids and the highest version this code writes.
 * Ids are never reused; a new layout of a record gets a new version, and readers keep decoding the
 * older versions.
 */
public enum MetadataRecordType {
    TOPIC(1, 0),
    /** Version 1 adds adding/removing replicas, ELR and last known ELR (written only when any is set). */
    PARTITION(2, 1),
    REMOVE_TOPIC(3, 0),
    CONFIG(4, 0),
    PRODUCER_IDS(5, 0),
    /** Version 1 adds broker epoch, supported features, fenced and in-controlled-shutdown. */
    REGISTER_BROKER(6, 1),
    BROKER_REGISTRATION_CHANGE(7, 0),
    UNREGISTER_BROKER(8, 0),
    /** Version 1 adds adding/removing replicas, ELR and last known ELR (written only when any is set). */
    PARTITION_CHANGE(9, 1),
    FEATURE_LEVEL(10, 0),
    USER_SCRAM_CREDENTIAL(11, 0),
    REMOVE_USER_SCRAM_CREDENTIAL(12, 0),
    ACCESS_CONTROL_ENTRY(13, 0),
    REMOVE_ACCESS_CONTROL_ENTRY(14, 0),
    /** A client quota value set or removed (Kafka's ClientQuotaRecord; Kafka's own id for it is 14). */
    CLIENT_QUOTA(15, 0),
    /** A delegation token issued, renewed or given an earlier expiry (Kafka's DelegationTokenRecord). */
    DELEGATION_TOKEN(16, 0),
    REMOVE_DELEGATION_TOKEN(17, 0);

    private final int id;
    private final int currentVersion;

    MetadataRecordType(int id, int currentVersion) {
        this.id = id;
        this.currentVersion = currentVersion;
    }

    public int id() {
        return id;
    }

    public int currentVersion() {
        return currentVersion;
    }

    public static MetadataRecordType fromId(int id) {
        for (MetadataRecordType type : values()) {
            if (type.id == id) {
                return type;
            }
        }
        throw new MetadataRecordFormatException("unknown metadata record type id " + id);
    }
}

package io.varve.metadata.record;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * Our binary format of metadata records: one record per Raft entry.
 *
 * <pre>
 *   unsigned varint  type id       {@link MetadataRecordType#id()}
 *   unsigned varint  version       layout version of that type
 *   fields, in declaration order:
 *     int            zig-zag varint
 *     long           zig-zag varint
 *     Uuid           two big-endian int64 (most, then least significant bits)
 *     String         unsigned varint (UTF-8 length + 1, 0 = null), then the UTF-8 bytes
 *     int[]          unsigned varint count, then each element as int
 *     short          zig-zag varint
 *     boolean        one byte, 0 or 1
 *     int[] or null  unsigned varint (count + 1, 0 = null), then each element as int
 *     enum           one byte code
 *     list           unsigned varint count, then each element
 *     byte[]         unsigned varint length, then the bytes
 *     double         the IEEE 754 bits as a big-endian int64
 * </pre>
 *
 * <p>Decoding rejects unknown types and versions, truncated input and trailing bytes: a metadata
 * log that cannot be fully understood must not be half-applied.
 */
public final class MetadataRecordSerde {

    private MetadataRecordSerde() {}

    public static byte[] serialize(MetadataRecord record) {
        ByteWriter out = new ByteWriter();
        write(record, out);
        return out.toByteArray();
    }

    /** Appends the record's encoding to {@code out}. */
    static void write(MetadataRecord record, ByteWriter out) {
        MetadataRecordType type = record.type();
        out.writeUnsignedVarInt(type.id());
        int version = versionOf(record);
        out.writeUnsignedVarInt(version);
        switch (type) {
            case TOPIC -> {
                TopicRecord topic = (TopicRecord) record;
                out.writeString(topic.name());
                out.writeUuid(topic.topicId());
            }
            case PARTITION -> {
                PartitionRecord partition = (PartitionRecord) record;
                out.writeUuid(partition.topicId());
                out.writeVarInt(partition.partitionId());
                out.writeIntArray(partition.replicas());
                out.writeIntArray(partition.isr());
                out.writeVarInt(partition.leader());
                out.writeVarInt(partition.leaderEpoch());
                out.writeVarInt(partition.partitionEpoch());
                if (version >= 1) {
                    out.writeIntArray(partition.addingReplicas());
                    out.writeIntArray(partition.removingReplicas());
                    out.writeIntArray(partition.elr());
                    out.writeIntArray(partition.lastKnownElr());
                }
            }
            case REMOVE_TOPIC -> out.writeUuid(((RemoveTopicRecord) record).topicId());
            case CONFIG -> {
                ConfigRecord config = (ConfigRecord) record;
                out.writeByte(config.resourceType().code());
                out.writeString(config.resourceName());
                out.writeString(config.name());
                out.writeNullableString(config.value());
            }
            case PRODUCER_IDS -> {
                ProducerIdsRecord producerIds = (ProducerIdsRecord) record;
                out.writeVarInt(producerIds.brokerId());
                out.writeVarLong(producerIds.nextProducerId());
            }
            case REGISTER_BROKER -> writeRegisterBroker(out, (RegisterBrokerRecord) record);
            case BROKER_REGISTRATION_CHANGE -> {
                BrokerRegistrationChangeRecord change = (BrokerRegistrationChangeRecord) record;
                out.writeVarInt(change.brokerId());
                out.writeVarLong(change.brokerEpoch());
                out.writeByte(change.fenced().code());
                out.writeByte(change.inControlledShutdown().code());
            }
            case UNREGISTER_BROKER -> {
                UnregisterBrokerRecord unregister = (UnregisterBrokerRecord) record;
                out.writeVarInt(unregister.brokerId());
                out.writeVarLong(unregister.brokerEpoch());
            }
            case PARTITION_CHANGE -> {
                PartitionChangeRecord change = (PartitionChangeRecord) record;
                out.writeUuid(change.topicId());
                out.writeVarInt(change.partitionId());
                out.writeNullableIntArray(change.isr());
                out.writeVarInt(change.leader());
                out.writeNullableIntArray(change.replicas());
                if (version >= 1) {
                    out.writeNullableIntArray(change.addingReplicas());
                    out.writeNullableIntArray(change.removingReplicas());
                    out.writeNullableIntArray(change.elr());
                    out.writeNullableIntArray(change.lastKnownElr());
                }
            }
            case FEATURE_LEVEL -> {
                FeatureLevelRecord feature = (FeatureLevelRecord) record;
                out.writeString(feature.name());
                out.writeVarInt(feature.featureLevel());
            }
            case USER_SCRAM_CREDENTIAL -> {
                UserScramCredentialRecord scram = (UserScramCredentialRecord) record;
                out.writeString(scram.name());
                out.writeByte(scram.mechanism());
                out.writeBytes(scram.salt());
                out.writeBytes(scram.storedKey());
                out.writeBytes(scram.serverKey());
                out.writeVarInt(scram.iterations());
            }
            case REMOVE_USER_SCRAM_CREDENTIAL -> {
                RemoveUserScramCredentialRecord remove = (RemoveUserScramCredentialRecord) record;
                out.writeString(remove.name());
                out.writeByte(remove.mechanism());
            }
            case ACCESS_CONTROL_ENTRY -> {
                AccessControlEntryRecord acl = (AccessControlEntryRecord) record;
                out.writeUuid(acl.id());
                out.writeByte(acl.resourceType());
                out.writeString(acl.resourceName());
                out.writeByte(acl.patternType());
                out.writeString(acl.principal());
                out.writeString(acl.host());
                out.writeByte(acl.operation());
                out.writeByte(acl.permission());
            }
            case REMOVE_ACCESS_CONTROL_ENTRY -> out.writeUuid(((RemoveAccessControlEntryRecord) record).id());
            case CLIENT_QUOTA -> {
                ClientQuotaRecord quota = (ClientQuotaRecord) record;
                out.writeUnsignedVarInt(quota.entity().size());
                quota.entity().forEach((entityType, name) -> {
                    out.writeString(entityType);
                    out.writeNullableString(name);
                });
                out.writeString(quota.key());
                out.writeFixedLong(Double.doubleToLongBits(quota.value()));
                out.writeBoolean(quota.remove());
            }
            case DELEGATION_TOKEN -> {
                DelegationTokenRecord token = (DelegationTokenRecord) record;
                out.writeString(token.tokenId());
                out.writeString(token.owner());
                out.writeString(token.requester());
                out.writeUnsignedVarInt(token.renewers().size());
                token.renewers().forEach(out::writeString);
                out.writeVarLong(token.issueTimestampMs());
                out.writeVarLong(token.maxTimestampMs());
                out.writeVarLong(token.expiryTimestampMs());
            }
            case REMOVE_DELEGATION_TOKEN -> out.writeString(((RemoveDelegationTokenRecord) record).tokenId());
            default -> throw new IllegalStateException("no encoder for " + type);
        }
    }

    /**
     * The layout version a record is written in: the current one, except that partition records without
     * reassignment or ELR state keep version 0, so that a log that never used them stays readable by builds
     * that predate version 1.
     */
    static int versionOf(MetadataRecord record) {
        if (record instanceof PartitionRecord partition) {
            return partition.hasVersion1Fields() ? 1 : 0;
        }
        if (record instanceof PartitionChangeRecord change) {
            return change.hasVersion1Fields() ? 1 : 0;
        }
        return record.type().currentVersion();
    }

    /**
     * @throws MetadataRecordFormatException if the bytes are not one complete record of a known type
     *                                       and version
     */
    public static MetadataRecord deserialize(byte[] bytes) {
        return read(new ByteReader(bytes));
    }

    /** Decodes one record that fills the reader's range exactly. */
    static MetadataRecord read(ByteReader in) {
        MetadataRecordType type = MetadataRecordType.fromId(in.readUnsignedVarInt());
        int version = in.readUnsignedVarInt();
        if (version > type.currentVersion()) {
            throw new MetadataRecordFormatException("version " + version + " of " + type
                    + " is newer than the supported version " + type.currentVersion());
        }
        MetadataRecord record;
        try {
            record = decodeBody(type, version, in);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new MetadataRecordFormatException("invalid " + type + " record: " + e.getMessage());
        }
        in.ensureFullyRead();
        return record;
    }

    private static MetadataRecord decodeBody(MetadataRecordType type, int version, ByteReader in) {
        return switch (type) {
            case TOPIC -> new TopicRecord(in.readString(), in.readUuid());
            case PARTITION -> readPartition(in, version);
            case REMOVE_TOPIC -> new RemoveTopicRecord(in.readUuid());
            case CONFIG ->
                new ConfigRecord(
                        ConfigResourceType.fromCode(in.readByte()),
                        in.readString(),
                        in.readString(),
                        in.readNullableString());
            case PRODUCER_IDS -> new ProducerIdsRecord(in.readVarInt(), in.readVarLong());
            case REGISTER_BROKER -> readRegisterBroker(in, version);
            case BROKER_REGISTRATION_CHANGE ->
                new BrokerRegistrationChangeRecord(
                        in.readVarInt(),
                        in.readVarLong(),
                        BrokerFlagChange.fromCode(in.readByte()),
                        BrokerFlagChange.fromCode(in.readByte()));
            case UNREGISTER_BROKER -> new UnregisterBrokerRecord(in.readVarInt(), in.readVarLong());
            case PARTITION_CHANGE -> readPartitionChange(in, version);
            case FEATURE_LEVEL -> new FeatureLevelRecord(in.readString(), in.readShort());
            case USER_SCRAM_CREDENTIAL ->
                new UserScramCredentialRecord(
                        in.readString(),
                        in.readByte(),
                        in.readBytes(),
                        in.readBytes(),
                        in.readBytes(),
                        in.readVarInt());
            case REMOVE_USER_SCRAM_CREDENTIAL -> new RemoveUserScramCredentialRecord(in.readString(), in.readByte());
            case ACCESS_CONTROL_ENTRY ->
                new AccessControlEntryRecord(
                        in.readUuid(),
                        in.readByte(),
                        in.readString(),
                        in.readByte(),
                        in.readString(),
                        in.readString(),
                        in.readByte(),
                        in.readByte());
            case REMOVE_ACCESS_CONTROL_ENTRY -> new RemoveAccessControlEntryRecord(in.readUuid());
            case CLIENT_QUOTA -> readClientQuota(in);
            case DELEGATION_TOKEN -> readDelegationToken(in);
            case REMOVE_DELEGATION_TOKEN -> new RemoveDelegationTokenRecord(in.readString());
        };
    }

    /** Id, owner, requester, renewers, then issue, maximum and expiry times. */
    private static DelegationTokenRecord readDelegationToken(ByteReader in) {
        String tokenId = in.readString();
        String owner = in.readString();
        String requester = in.readString();
        int count = in.readCount();
        java.util.List<String> renewers = new java.util.ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            renewers.add(in.readString());
        }
        return new DelegationTokenRecord(
                tokenId, owner, requester, renewers, in.readVarLong(), in.readVarLong(), in.readVarLong());
    }

    /** Entity types with their names (null: the default entity), the key, the value as IEEE bits, the removal. */
    private static ClientQuotaRecord readClientQuota(ByteReader in) {
        int count = in.readCount();
        Map<String, String> entity = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            String type = in.readString();
            if (entity.containsKey(type)) {
                throw new MetadataRecordFormatException("client quota entity type " + type + " listed twice");
            }
            entity.put(type, in.readNullableString());
        }
        return new ClientQuotaRecord(
                entity, in.readString(), Double.longBitsToDouble(in.readFixedLong()), in.readBoolean());
    }

    /** Version 1 appends adding replicas, removing replicas, ELR and last known ELR to version 0's fields. */
    private static PartitionRecord readPartition(ByteReader in, int version) {
        Uuid topicId = in.readUuid();
        int partitionId = in.readVarInt();
        int[] replicas = in.readIntArray();
        int[] isr = in.readIntArray();
        int leader = in.readVarInt();
        int leaderEpoch = in.readVarInt();
        int partitionEpoch = in.readVarInt();
        if (version == 0) {
            return new PartitionRecord(topicId, partitionId, replicas, isr, leader, leaderEpoch, partitionEpoch);
        }
        return new PartitionRecord(
                topicId,
                partitionId,
                replicas,
                isr,
                leader,
                leaderEpoch,
                partitionEpoch,
                in.readIntArray(),
                in.readIntArray(),
                in.readIntArray(),
                in.readIntArray());
    }

    /** Version 1 appends the nullable adding replicas, removing replicas, ELR and last known ELR. */
    private static PartitionChangeRecord readPartitionChange(ByteReader in, int version) {
        Uuid topicId = in.readUuid();
        int partitionId = in.readVarInt();
        int[] isr = in.readNullableIntArray();
        int leader = in.readVarInt();
        int[] replicas = in.readNullableIntArray();
        if (version == 0) {
            return new PartitionChangeRecord(topicId, partitionId, isr, leader, replicas);
        }
        return new PartitionChangeRecord(
                topicId,
                partitionId,
                isr,
                leader,
                replicas,
                in.readNullableIntArray(),
                in.readNullableIntArray(),
                in.readNullableIntArray(),
                in.readNullableIntArray());
    }

    /** Version 0: id, incarnation, endpoints, rack. Version 1 puts the epoch after the incarnation and appends
     * the supported features, then the fenced and in-controlled-shutdown flags. */
    private static void writeRegisterBroker(ByteWriter out, RegisterBrokerRecord broker) {
        out.writeVarInt(broker.brokerId());
        out.writeUuid(broker.incarnationId());
        out.writeVarLong(broker.brokerEpoch());
        out.writeUnsignedVarInt(broker.endpoints().size());
        for (Endpoint endpoint : broker.endpoints()) {
            out.writeString(endpoint.listenerName());
            out.writeString(endpoint.host());
            out.writeVarInt(endpoint.port());
            out.writeString(endpoint.securityProtocol());
        }
        out.writeNullableString(broker.rack());
        out.writeUnsignedVarInt(broker.supportedFeatures().size());
        broker.supportedFeatures().forEach((name, range) -> {
            out.writeString(name);
            out.writeVarInt(range.min());
            out.writeVarInt(range.max());
        });
        out.writeBoolean(broker.fenced());
        out.writeBoolean(broker.inControlledShutdown());
    }

    private static RegisterBrokerRecord readRegisterBroker(ByteReader in, int version) {
        int brokerId = in.readVarInt();
        Uuid incarnationId = in.readUuid();
        long brokerEpoch = version >= 1 ? in.readVarLong() : 0;
        int endpointCount = in.readCount();
        List<Endpoint> endpoints = new ArrayList<>(endpointCount);
        for (int i = 0; i < endpointCount; i++) {
            endpoints.add(new Endpoint(in.readString(), in.readString(), in.readVarInt(), in.readString()));
        }
        String rack = in.readNullableString();
        if (version == 0) {
            return new RegisterBrokerRecord(brokerId, incarnationId, endpoints, rack);
        }
        int featureCount = in.readCount();
        Map<String, VersionRange> features = new TreeMap<>();
        for (int i = 0; i < featureCount; i++) {
            String name = in.readString();
            if (features.put(name, new VersionRange(in.readShort(), in.readShort())) != null) {
                throw new MetadataRecordFormatException("feature " + name + " listed twice");
            }
        }
        return new RegisterBrokerRecord(
                brokerId, incarnationId, brokerEpoch, endpoints, rack, features, in.readBoolean(), in.readBoolean());
    }
}

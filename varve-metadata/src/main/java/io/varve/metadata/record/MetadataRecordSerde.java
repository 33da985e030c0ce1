package io.varve.metadata.record;

import java.util.ArrayList;
import java.util.List;

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
 *     enum           one byte code
 *     list           unsigned varint count, then each element
 * </pre>
 *
 * <p>Decoding rejects unknown types and versions, truncated input and trailing bytes: a metadata
 * log that cannot be fully understood must not be half-applied.
 */
public final class MetadataRecordSerde {

    private MetadataRecordSerde() {}

    public static byte[] serialize(MetadataRecord record) {
        ByteWriter out = new ByteWriter();
        MetadataRecordType type = record.type();
        out.writeUnsignedVarInt(type.id());
        out.writeUnsignedVarInt(type.currentVersion());
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
            case REGISTER_BROKER -> {
                RegisterBrokerRecord broker = (RegisterBrokerRecord) record;
                out.writeVarInt(broker.brokerId());
                out.writeUuid(broker.incarnationId());
                out.writeUnsignedVarInt(broker.endpoints().size());
                for (Endpoint endpoint : broker.endpoints()) {
                    out.writeString(endpoint.listenerName());
                    out.writeString(endpoint.host());
                    out.writeVarInt(endpoint.port());
                    out.writeString(endpoint.securityProtocol());
                }
                out.writeNullableString(broker.rack());
            }
            default -> throw new IllegalStateException("no encoder for " + type);
        }
        return out.toByteArray();
    }

    /**
     * @throws MetadataRecordFormatException if the bytes are not one complete record of a known type
     *                                       and version
     */
    public static MetadataRecord deserialize(byte[] bytes) {
        ByteReader in = new ByteReader(bytes);
        MetadataRecordType type = MetadataRecordType.fromId(in.readUnsignedVarInt());
        int version = in.readUnsignedVarInt();
        if (version > type.currentVersion()) {
            throw new MetadataRecordFormatException("version " + version + " of " + type
                    + " is newer than the supported version " + type.currentVersion());
        }
        MetadataRecord record;
        try {
            record = decodeBody(type, in);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new MetadataRecordFormatException("invalid " + type + " record: " + e.getMessage());
        }
        in.ensureFullyRead();
        return record;
    }

    private static MetadataRecord decodeBody(MetadataRecordType type, ByteReader in) {
        return switch (type) {
            case TOPIC -> new TopicRecord(in.readString(), in.readUuid());
            case PARTITION ->
                new PartitionRecord(
                        in.readUuid(),
                        in.readVarInt(),
                        in.readIntArray(),
                        in.readIntArray(),
                        in.readVarInt(),
                        in.readVarInt(),
                        in.readVarInt());
            case REMOVE_TOPIC -> new RemoveTopicRecord(in.readUuid());
            case CONFIG ->
                new ConfigRecord(
                        ConfigResourceType.fromCode(in.readByte()),
                        in.readString(),
                        in.readString(),
                        in.readNullableString());
            case PRODUCER_IDS -> new ProducerIdsRecord(in.readVarInt(), in.readVarLong());
            case REGISTER_BROKER -> {
                int brokerId = in.readVarInt();
                org.apache.kafka.common.Uuid incarnationId = in.readUuid();
                int endpointCount = in.readCount();
                List<Endpoint> endpoints = new ArrayList<>(endpointCount);
                for (int i = 0; i < endpointCount; i++) {
                    endpoints.add(new Endpoint(in.readString(), in.readString(), in.readVarInt(), in.readString()));
                }
                yield new RegisterBrokerRecord(brokerId, incarnationId, endpoints, in.readNullableString());
            }
        };
    }
}

package io.varve.metadata.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class MetadataRecordSerdeTest {

    static Stream<MetadataRecord> everyRecordType() {
        Uuid id = Uuid.randomUuid();
        return Stream.of(
                new TopicRecord("orders", id),
                new TopicRecord("__consumer_offsets", new Uuid(Long.MIN_VALUE, -1)),
                new PartitionRecord(id, 7, new int[] {1, 2, 3}, new int[] {1, 3}, 1, 12, 40),
                new PartitionRecord(id, 0, new int[0], new int[0], -1, 0, 0),
                new PartitionRecord(
                        id,
                        2,
                        new int[] {4, 2, 3, 1},
                        new int[] {1},
                        1,
                        3,
                        9,
                        new int[] {4},
                        new int[] {1},
                        new int[] {2, 3},
                        new int[0]),
                new PartitionRecord(
                        id, 3, new int[] {1, 2}, new int[0], -1, 3, 9, new int[0], new int[0], new int[0], new int[] {2
                        }),
                new RemoveTopicRecord(id),
                new ConfigRecord(ConfigResourceType.TOPIC, "orders", "retention.ms", "86400000"),
                new ConfigRecord(ConfigResourceType.BROKER, "", "log.retention.ms", null),
                new ConfigRecord(ConfigResourceType.TOPIC, "t", "x", "ünïcødé ✓"),
                new ProducerIdsRecord(1, 1000),
                new ProducerIdsRecord(0, Long.MAX_VALUE),
                new RegisterBrokerRecord(
                        3,
                        Uuid.randomUuid(),
                        List.of(
                                new Endpoint("PLAINTEXT", "localhost", 9092, "PLAINTEXT"),
                                new Endpoint("SSL", "broker-3.example", 9093, "SSL")),
                        "rack-a"),
                new RegisterBrokerRecord(0, Uuid.randomUuid(), List.of(), null),
                new RegisterBrokerRecord(
                        4,
                        Uuid.randomUuid(),
                        123_456_789_000L,
                        List.of(new Endpoint("PLAINTEXT", "b4", 9092, "PLAINTEXT")),
                        "rack-b",
                        Map.of("metadata.version", VersionRange.of(7, 27), "group.version", VersionRange.of(0, 1)),
                        true,
                        false),
                new RegisterBrokerRecord(5, Uuid.randomUuid(), 9, List.of(), null, Map.of(), false, true),
                BrokerRegistrationChangeRecord.fence(3, 17),
                BrokerRegistrationChangeRecord.unfence(3, 17),
                BrokerRegistrationChangeRecord.enterControlledShutdown(3, Long.MAX_VALUE),
                new UnregisterBrokerRecord(2, 40),
                new PartitionChangeRecord(id, 3, new int[] {1, 2}, 2, null),
                new PartitionChangeRecord(id, 0, null, PartitionChangeRecord.NO_LEADER, null),
                new PartitionChangeRecord(
                        id, 1, new int[] {4}, PartitionChangeRecord.NO_LEADER_CHANGE, new int[] {4, 5}),
                new PartitionChangeRecord(id, 1, new int[0], PartitionChangeRecord.NO_LEADER_CHANGE, null),
                new PartitionChangeRecord(
                        id, 1, null, PartitionChangeRecord.NO_LEADER_CHANGE, null, null, null, new int[] {2}, null),
                new PartitionChangeRecord(
                        id, 1, new int[] {4}, 4, new int[] {4, 5}, new int[0], new int[0], new int[0], new int[] {1}),
                new FeatureLevelRecord("metadata.version", (short) 27),
                new FeatureLevelRecord("transaction.version", (short) 0));
    }

    @ParameterizedTest
    @MethodSource("everyRecordType")
    void everyRecordRoundTripsThroughItsBinaryForm(MetadataRecord record) {
        byte[] bytes = MetadataRecordSerde.serialize(record);

        assertThat(MetadataRecordSerde.deserialize(bytes)).isEqualTo(record);
    }

    @ParameterizedTest
    @MethodSource("everyRecordType")
    void everyTruncationOfARecordIsRejected(MetadataRecord record) {
        byte[] bytes = MetadataRecordSerde.serialize(record);
        for (int length = 0; length < bytes.length; length++) {
            byte[] truncated = Arrays.copyOf(bytes, length);
            assertThatThrownBy(() -> MetadataRecordSerde.deserialize(truncated))
                    .as("truncated to %d of %d bytes", length, bytes.length)
                    .isInstanceOf(MetadataRecordFormatException.class);
        }
    }

    @Test
    void recordsStartWithTypeIdAndVersion() {
        byte[] bytes = MetadataRecordSerde.serialize(new RemoveTopicRecord(Uuid.randomUuid()));

        assertThat(bytes[0]).isEqualTo((byte) MetadataRecordType.REMOVE_TOPIC.id());
        assertThat(bytes[1]).isEqualTo((byte) MetadataRecordType.REMOVE_TOPIC.currentVersion());
        assertThat(bytes).hasSize(2 + 16);
    }

    @Test
    void trailingBytesAreRejected() {
        byte[] bytes = MetadataRecordSerde.serialize(new ProducerIdsRecord(1, 5));
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);

        assertThatThrownBy(() -> MetadataRecordSerde.deserialize(longer))
                .isInstanceOf(MetadataRecordFormatException.class)
                .hasMessageContaining("trailing");
    }

    @Test
    void unknownTypeAndNewerVersionAreRejected() {
        assertThatThrownBy(() -> MetadataRecordSerde.deserialize(new byte[] {99, 0}))
                .isInstanceOf(MetadataRecordFormatException.class)
                .hasMessageContaining("unknown metadata record type");
        byte[] bytes = MetadataRecordSerde.serialize(new ProducerIdsRecord(1, 5));
        bytes[1] = 9;
        assertThatThrownBy(() -> MetadataRecordSerde.deserialize(bytes))
                .isInstanceOf(MetadataRecordFormatException.class)
                .hasMessageContaining("newer");
    }

    @Test
    void invalidFieldValuesAreFormatErrorsNotCrashes() {
        // a ProducerIdsRecord with a negative next id: zig-zag 1 = -1
        byte[] bytes = {(byte) MetadataRecordType.PRODUCER_IDS.id(), 0, 2, 1};

        assertThatThrownBy(() -> MetadataRecordSerde.deserialize(bytes))
                .isInstanceOf(MetadataRecordFormatException.class);
    }

    @Test
    void partitionRecordIsImmutable() {
        int[] replicas = {1, 2};
        PartitionRecord record = new PartitionRecord(Uuid.randomUuid(), 0, replicas, replicas, 1, 0, 0);
        replicas[0] = 9;
        record.replicas()[1] = 9;

        assertThat(record.replicas()).containsExactly(1, 2);
    }

    /** Version 0 of RegisterBrokerRecord, byte for byte as single-node Varve wrote it. */
    private static byte[] registerBrokerV0(int brokerId, Uuid incarnationId, Endpoint endpoint, String rack) {
        ByteWriter out = new ByteWriter();
        out.writeUnsignedVarInt(MetadataRecordType.REGISTER_BROKER.id());
        out.writeUnsignedVarInt(0);
        out.writeVarInt(brokerId);
        out.writeUuid(incarnationId);
        out.writeUnsignedVarInt(1);
        out.writeString(endpoint.listenerName());
        out.writeString(endpoint.host());
        out.writeVarInt(endpoint.port());
        out.writeString(endpoint.securityProtocol());
        out.writeNullableString(rack);
        return out.toByteArray();
    }

    @Test
    void aVersion0BrokerRegistrationReadsAsAnUnfencedBrokerWithEpoch0AndNoFeatures() {
        Uuid incarnation = Uuid.randomUuid();
        Endpoint endpoint = new Endpoint("PLAINTEXT", "localhost", 9092, "PLAINTEXT");

        RegisterBrokerRecord record = (RegisterBrokerRecord)
                MetadataRecordSerde.deserialize(registerBrokerV0(1, incarnation, endpoint, "r1"));

        assertThat(record)
                .isEqualTo(
                        new RegisterBrokerRecord(1, incarnation, 0, List.of(endpoint), "r1", Map.of(), false, false));
    }

    @Test
    void aVersion0BrokerRegistrationWithTrailingVersion1FieldsIsRejected() {
        byte[] v0 = registerBrokerV0(1, Uuid.randomUuid(), new Endpoint("P", "h", 1, "PLAINTEXT"), null);
        byte[] longer = Arrays.copyOf(v0, v0.length + 3);

        assertThatThrownBy(() -> MetadataRecordSerde.deserialize(longer))
                .isInstanceOf(MetadataRecordFormatException.class)
                .hasMessageContaining("trailing");
    }

    @Test
    void brokerRegistrationsAreWrittenAtVersion1() {
        byte[] bytes = MetadataRecordSerde.serialize(new RegisterBrokerRecord(1, Uuid.randomUuid(), List.of(), null));

        assertThat(bytes[1]).isEqualTo((byte) 1);
    }

    @Test
    void unknownFlagChangeCodesAndNonBooleanBytesAreFormatErrors() {
        byte[] change = MetadataRecordSerde.serialize(BrokerRegistrationChangeRecord.fence(1, 1));
        change[change.length - 1] = 7;
        assertThatThrownBy(() -> MetadataRecordSerde.deserialize(change))
                .isInstanceOf(MetadataRecordFormatException.class);

        byte[] registration = MetadataRecordSerde.serialize(
                new RegisterBrokerRecord(1, Uuid.randomUuid(), 1, List.of(), null, Map.of(), true, false));
        registration[registration.length - 2] = 2;
        assertThatThrownBy(() -> MetadataRecordSerde.deserialize(registration))
                .isInstanceOf(MetadataRecordFormatException.class);
    }

    @Test
    void aPartitionChangeThatChangesNothingIsRefused() {
        assertThatThrownBy(() -> new PartitionChangeRecord(
                        Uuid.randomUuid(), 0, null, PartitionChangeRecord.NO_LEADER_CHANGE, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void partitionRecordsWithoutReassignmentOrElrAreStillWrittenAtVersion0AndOthersAtVersion1() {
        Uuid id = Uuid.randomUuid();
        byte[] plain = MetadataRecordSerde.serialize(new PartitionRecord(id, 0, new int[] {1}, new int[] {1}, 1, 0, 0));
        byte[] withElr = MetadataRecordSerde.serialize(new PartitionRecord(
                id, 0, new int[] {1, 2}, new int[] {1}, 1, 0, 0, new int[0], new int[0], new int[] {2}, new int[0]));
        byte[] change = MetadataRecordSerde.serialize(new PartitionChangeRecord(id, 0, new int[] {1}, 1, null));
        byte[] changeWithElr = MetadataRecordSerde.serialize(new PartitionChangeRecord(
                id, 0, null, PartitionChangeRecord.NO_LEADER_CHANGE, null, null, null, new int[] {2}, null));

        assertThat(plain[1]).isEqualTo((byte) 0);
        assertThat(withElr[1]).isEqualTo((byte) 1);
        assertThat(change[1]).isEqualTo((byte) 0);
        assertThat(changeWithElr[1]).isEqualTo((byte) 1);
    }

    @Test
    void aVersion0PartitionRecordReadsWithoutReassignmentOrElr() {
        Uuid id = Uuid.randomUuid();
        PartitionRecord v0 = new PartitionRecord(id, 4, new int[] {1, 2}, new int[] {2}, 2, 7, 8);

        PartitionRecord read = (PartitionRecord) MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(v0));

        assertThat(read.elr()).isEmpty();
        assertThat(read.addingReplicas()).isEmpty();
        assertThat(read).isEqualTo(v0);
    }
}

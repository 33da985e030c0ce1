package io.varve.metadata.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
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
                new RegisterBrokerRecord(0, Uuid.randomUuid(), List.of(), null));
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
}

package io.varve.metadata.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClientQuotaRecordSerdeTest {

    @Test
    void clientQuotaRecordsRoundTripWithDefaultEntitiesAndRemovals() {
        Map<String, String> userDefaultClient = new HashMap<>();
        userDefaultClient.put("user", "alice");
        userDefaultClient.put("client-id", null);
        ClientQuotaRecord set = new ClientQuotaRecord(userDefaultClient, "producer_byte_rate", 1048576, false);
        assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(set)))
                .isEqualTo(set);
        ClientQuotaRecord fraction =
                new ClientQuotaRecord(Map.of("client-id", "app"), "request_percentage", 12.5, false);
        assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(fraction)))
                .isEqualTo(fraction);
        ClientQuotaRecord remove =
                new ClientQuotaRecord(Map.of("ip", "127.0.0.1"), "connection_creation_rate", 7, true);
        ClientQuotaRecord read =
                (ClientQuotaRecord) MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(remove));
        assertThat(read.remove()).isTrue();
        assertThat(read.value()).isZero();
        assertThat(MetadataRecordType.fromId(15)).isEqualTo(MetadataRecordType.CLIENT_QUOTA);
    }
}

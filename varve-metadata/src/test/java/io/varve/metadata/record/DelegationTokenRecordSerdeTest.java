package io.varve.metadata.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class DelegationTokenRecordSerdeTest {

    @Test
    void delegationTokenRecordsRoundTrip() {
        DelegationTokenRecord token = new DelegationTokenRecord(
                "Qm9ndXNUb2tlbklkMDEyMw", "User:alice", "User:admin", List.of("User:bob", "User:carol"), 1, 3, 2);
        assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(token)))
                .isEqualTo(token);
        RemoveDelegationTokenRecord remove = new RemoveDelegationTokenRecord("Qm9ndXNUb2tlbklkMDEyMw");
        assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(remove)))
                .isEqualTo(remove);
    }
}

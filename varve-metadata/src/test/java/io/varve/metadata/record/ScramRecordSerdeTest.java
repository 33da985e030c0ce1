package io.varve.metadata.record;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ScramRecordSerdeTest {

    @Test
    void scramCredentialRecordsRoundTripAndNeverPrintTheirKeys() {
        UserScramCredentialRecord set = new UserScramCredentialRecord(
                "alice", (byte) 2, new byte[] {1, 2, 3}, new byte[64], new byte[] {9, 9}, 8192);
        assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(set)))
                .isEqualTo(set);
        RemoveUserScramCredentialRecord remove = new RemoveUserScramCredentialRecord("alice", (byte) 1);
        assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(remove)))
                .isEqualTo(remove);
        assertThat(set.toString()).doesNotContain("[");
    }
}

package io.varve.metadata.controller.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.ErrorReply;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.MetadataImageDiff;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.UserScramCredentialRecord;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ScramControlTest {
    private final ScramControl control = new ScramControl();

    private static UserScramCredentialRecord credential(String user, int mechanism, int iterations) {
        return new UserScramCredentialRecord(
                user, (byte) mechanism, new byte[] {1}, new byte[] {2}, new byte[] {3}, iterations);
    }

    private static MetadataImage replay(MetadataImage image, List<MetadataRecord> records) {
        MetadataDelta delta = new MetadataDelta(image);
        records.forEach(delta::replay);
        return delta.apply(image.offset() + records.size());
    }

    @Test
    void upsertionsAndDeletionsBecomeRecordsTheImageReplays() {
        ControllerResult<Map<String, ErrorReply>> created = control.alter(
                MetadataImage.EMPTY,
                List.of(),
                List.of(credential("alice", 1, 4096), credential("alice", 2, 8192), credential("bob", 2, 4096)));
        assertThat(created.response()).containsOnlyKeys("alice", "bob").allSatisfy((u, r) -> assertThat(r)
                .isEqualTo(ErrorReply.NONE));
        MetadataImage image = replay(MetadataImage.EMPTY, created.records());
        assertThat(image.scram().credential("alice", (byte) 2)).contains(credential("alice", 2, 8192));

        ControllerResult<Map<String, ErrorReply>> removed = control.alter(
                image, List.of(new ScramControl.Deletion("alice", (byte) 1)), List.of(credential("bob", 2, 5000)));
        MetadataImage after = replay(image, removed.records());
        assertThat(after.scram().credential("alice", (byte) 1)).isEmpty();
        assertThat(after.scram().credential("alice", (byte) 2)).isPresent();
        assertThat(after.scram().credential("bob", (byte) 2).orElseThrow().iterations())
                .isEqualTo(5000);
        // a snapshot carries the credentials, and a diff between images reproduces them
        assertThat(replay(MetadataImage.EMPTY, after.toRecords()).scram()).isEqualTo(after.scram());
        assertThat(MetadataImageDiff.between(image, after).apply(after.offset()))
                .isEqualTo(after);
    }

    @Test
    void deletingACredentialThatDoesNotExistFailsThatUserOnly() {
        ControllerResult<Map<String, ErrorReply>> result = control.alter(
                MetadataImage.EMPTY,
                List.of(new ScramControl.Deletion("carol", (byte) 1)),
                List.of(credential("carol", 2, 4096), credential("dave", 1, 4096)));
        assertThat(result.response().get("carol").error()).isEqualTo(Errors.RESOURCE_NOT_FOUND);
        assertThat(result.response().get("dave")).isEqualTo(ErrorReply.NONE);
        assertThat(result.records()).containsExactly(credential("dave", 1, 4096));
    }
}

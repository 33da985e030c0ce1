package io.varve.metadata.controller.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.MetadataImageDiff;
import io.varve.metadata.record.AccessControlEntryRecord;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.MetadataRecordSerde;
import io.varve.metadata.record.RemoveAccessControlEntryRecord;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class AclControlTest {
    private final AclControl control = new AclControl();

    private static AccessControlEntryRecord acl(String topic, String principal) {
        return new AccessControlEntryRecord(
                Uuid.randomUuid(), (byte) 2, topic, (byte) 3, principal, "*", (byte) 3, (byte) 3);
    }

    private static MetadataImage replay(MetadataImage image, List<MetadataRecord> records) {
        MetadataDelta delta = new MetadataDelta(image);
        records.forEach(delta::replay);
        return delta.apply(image.offset() + records.size());
    }

    @Test
    void creatingAnExistingAclWritesNothingAndDeletionRemovesWhatFiltersMatch() {
        AccessControlEntryRecord alice = acl("orders", "User:alice");
        AccessControlEntryRecord bob = acl("orders", "User:bob");
        MetadataImage image = replay(
                MetadataImage.EMPTY,
                control.create(MetadataImage.EMPTY, List.of(alice, bob)).records());
        assertThat(image.acls().acls()).hasSize(2);
        assertThat(control.create(image, List.of(acl("orders", "User:alice"))).records())
                .isEmpty();

        ControllerResult<List<List<AccessControlEntryRecord>>> deleted =
                control.delete(image, List.of(a -> a.principal().equals("User:alice"), a -> a.resourceName()
                        .equals("orders")));
        assertThat(deleted.response().get(0)).containsExactly(alice);
        assertThat(deleted.response().get(1)).containsExactly(alice, bob);
        assertThat(deleted.records())
                .containsExactly(
                        new RemoveAccessControlEntryRecord(alice.id()), new RemoveAccessControlEntryRecord(bob.id()));
        MetadataImage after = replay(image, deleted.records());
        assertThat(after.acls().acls()).isEmpty();
        assertThat(replay(MetadataImage.EMPTY, image.toRecords()).acls()).isEqualTo(image.acls());
        assertThat(MetadataImageDiff.between(image, after).apply(after.offset()))
                .isEqualTo(after);
    }

    @Test
    void aclRecordsRoundTrip() {
        AccessControlEntryRecord acl = acl("t", "User:x");
        assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(acl)))
                .isEqualTo(acl);
        RemoveAccessControlEntryRecord remove = new RemoveAccessControlEntryRecord(acl.id());
        assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(remove)))
                .isEqualTo(remove);
    }
}

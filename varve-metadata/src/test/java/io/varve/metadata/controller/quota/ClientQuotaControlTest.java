package io.varve.metadata.controller.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.ErrorReply;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.MetadataImageDiff;
import io.varve.metadata.record.MetadataRecord;
import java.util.AbstractMap.SimpleEntry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ClientQuotaControlTest {
    private final ClientQuotaControl control = new ClientQuotaControl();

    private static Map.Entry<String, String> part(String type, String name) {
        return new SimpleEntry<>(type, name);
    }

    private static ClientQuotaControl.Entry entry(
            List<Map.Entry<String, String>> entity, ClientQuotaControl.Op... ops) {
        return new ClientQuotaControl.Entry(entity, List.of(ops));
    }

    private static ClientQuotaControl.Op set(String key, double value) {
        return new ClientQuotaControl.Op(key, value, false);
    }

    private static MetadataImage replay(MetadataImage image, List<MetadataRecord> records) {
        MetadataDelta delta = new MetadataDelta(image);
        records.forEach(delta::replay);
        return delta.apply(image.offset() + records.size());
    }

    @Test
    void setAndRemovedQuotasOfUsersClientsAndDefaultsReachTheImage() {
        ControllerResult<List<ErrorReply>> created = control.alter(
                MetadataImage.EMPTY,
                List.of(
                        entry(
                                List.of(part("user", "alice")),
                                set("producer_byte_rate", 1024),
                                set("request_percentage", 50)),
                        entry(List.of(part("user", null)), set("consumer_byte_rate", 2048)),
                        entry(List.of(part("user", "alice"), part("client-id", null)), set("producer_byte_rate", 512)),
                        entry(List.of(part("ip", "127.0.0.1")), set("connection_creation_rate", 10))),
                false);
        assertThat(created.response()).containsOnly(ErrorReply.NONE);
        MetadataImage image = replay(MetadataImage.EMPTY, created.records());
        assertThat(image.clientQuotas().quotas(Map.of("user", "alice")))
                .containsEntry("producer_byte_rate", 1024.0)
                .containsEntry("request_percentage", 50.0);
        Map<String, String> userDefault = new HashMap<>();
        userDefault.put("user", null);
        assertThat(image.clientQuotas().quotas(userDefault)).containsEntry("consumer_byte_rate", 2048.0);

        ControllerResult<List<ErrorReply>> removed = control.alter(
                image,
                List.of(entry(
                        List.of(part("user", "alice")),
                        new ClientQuotaControl.Op("request_percentage", 0, true),
                        new ClientQuotaControl.Op("consumer_byte_rate", 0, true))),
                false);
        // removing a key that is not set writes nothing
        assertThat(removed.records()).hasSize(1);
        MetadataImage after = replay(image, removed.records());
        assertThat(after.clientQuotas().quotas(Map.of("user", "alice"))).containsOnlyKeys("producer_byte_rate");
        // snapshots and image diffs carry the quotas
        assertThat(replay(MetadataImage.EMPTY, after.toRecords()).clientQuotas())
                .isEqualTo(after.clientQuotas());
        assertThat(MetadataImageDiff.between(image, after).apply(after.offset()).clientQuotas())
                .isEqualTo(after.clientQuotas());
    }

    @Test
    void validateOnlyChecksWithoutWriting() {
        ControllerResult<List<ErrorReply>> result = control.alter(
                MetadataImage.EMPTY,
                List.of(entry(List.of(part("client-id", "app")), set("producer_byte_rate", 1))),
                true);
        assertThat(result.response()).containsExactly(ErrorReply.NONE);
        assertThat(result.records()).isEmpty();
    }

    @Test
    void badEntriesAreInvalidRequestsWhileTheOthersApply() {
        List<ClientQuotaControl.Entry> entries = List.of(
                entry(List.of(part("user", "alice")), set("producer_byte_rate", 1.5)),
                entry(List.of(part("user", "alice")), set("no_such_quota", 1)),
                entry(List.of(part("group", "g")), set("producer_byte_rate", 1)),
                entry(List.of(part("ip", "127.0.0.1"), part("user", "bob")), set("connection_creation_rate", 1)),
                entry(List.of(part("ip", "127.0.0.1")), set("producer_byte_rate", 1)),
                entry(List.of(part("ip", "not-an-address")), set("connection_creation_rate", 1)),
                entry(List.of(part("user", "bob")), set("consumer_byte_rate", -5)),
                entry(List.of(), set("producer_byte_rate", 1)),
                entry(List.of(part("user", "carol")), set("producer_byte_rate", 4096)));
        ControllerResult<List<ErrorReply>> result = control.alter(MetadataImage.EMPTY, entries, false);
        assertThat(result.response().subList(0, 8))
                .allSatisfy(r -> assertThat(r.error()).isEqualTo(Errors.INVALID_REQUEST));
        assertThat(result.response().get(0).message()).contains("must be a Long value");
        assertThat(result.response().get(1).message()).contains("no_such_quota");
        assertThat(result.response().get(8)).isEqualTo(ErrorReply.NONE);
        assertThat(replay(MetadataImage.EMPTY, result.records()).clientQuotas().entities())
                .containsOnlyKeys(Map.of("user", "carol"));
    }
}

package io.varve.broker.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.api.ProduceRecordCheck.RecordError;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.registry.RegisterRequest;
import io.varve.registry.SchemaRegistry;
import io.varve.registry.store.InMemorySchemaLog;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

class SchemaValidationTest {
    private static final String USER = "{\"type\":\"record\",\"name\":\"User\",\"namespace\":\"demo\",\"fields\":[]}";
    private static final String ORDER = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"demo\",\"fields\":[]}";

    private final SchemaRegistry registry = new SchemaRegistry(new InMemorySchemaLog());
    private final SchemaValidation validation = new SchemaValidation(registry);

    private static TopicInfo topic(Map<String, String> configs) {
        return new TopicInfo("orders", Uuid.randomUuid(), Map.of(), configs);
    }

    private static byte[] framed(int id) {
        return ByteBuffer.allocate(5).put((byte) 0).putInt(id).array();
    }

    private static ByteBuffer batch(byte[][]... keyValues) {
        SimpleRecord[] records = new SimpleRecord[keyValues.length];
        for (int i = 0; i < records.length; i++) {
            records[i] = new SimpleRecord(1L, keyValues[i][0], keyValues[i][1]);
        }
        return MemoryRecords.withRecords(Compression.gzip().build(), records).buffer();
    }

    private static byte[][] kv(byte[] key, byte[] value) {
        return new byte[][] {key, value};
    }

    @Test
    void aTopicWithoutValidationConfigsIsNotChecked() {
        assertThat(validation.appliesTo(topic(Map.of()))).isFalse();
        assertThat(validation.appliesTo(topic(Map.of("confluent.value.schema.validation", "false"))))
                .isFalse();
        assertThat(validation.appliesTo(topic(Map.of("confluent.key.schema.validation", "true"))))
                .isTrue();
    }

    @Test
    void topicNameStrategyNeedsTheIdUnderTopicDashValueAndTombstonesPass() {
        int user = registry.register("orders-value", RegisterRequest.of(null, USER), false);
        int order = registry.register("elsewhere-value", RegisterRequest.of(null, ORDER), false);
        TopicInfo t = topic(Map.of("confluent.value.schema.validation", "true"));
        List<RecordError> errors = validation.check(
                t, batch(kv(null, framed(user)), kv(null, null), kv(null, framed(order)), kv(null, new byte[] {1, 2})));
        assertThat(errors).extracting(RecordError::index).containsExactly(2, 3);
        assertThat(errors.get(0).message()).contains("not registered under subject 'orders-value'");
        assertThat(errors.get(1).message()).contains("magic byte 0");
    }

    @Test
    void recordNameStrategiesNameTheSubjectAfterTheSchemasRecord() {
        int user = registry.register("demo.User", RegisterRequest.of(null, USER), false);
        int order = registry.register("orders-demo.Order", RegisterRequest.of(null, ORDER), false);
        TopicInfo byRecord = topic(Map.of(
                "confluent.value.schema.validation", "true",
                "confluent.value.subject.name.strategy", "io.confluent.kafka.serializers.subject.RecordNameStrategy"));
        assertThat(validation.check(byRecord, batch(kv(null, framed(user))))).isEmpty();
        assertThat(validation.check(byRecord, batch(kv(null, framed(order))))).hasSize(1);
        TopicInfo byTopicRecord = topic(Map.of(
                "confluent.value.schema.validation", "true",
                "confluent.value.subject.name.strategy", "TopicRecordNameStrategy"));
        assertThat(validation.check(byTopicRecord, batch(kv(null, framed(order)))))
                .isEmpty();
        assertThat(validation.check(byTopicRecord, batch(kv(null, framed(user)))))
                .hasSize(1);
    }

    @Test
    void keysAreCheckedAgainstTheKeySubjectOnlyWhenKeyValidationIsOn() {
        int user = registry.register("orders-key", RegisterRequest.of(null, USER), false);
        TopicInfo keys = topic(Map.of("confluent.key.schema.validation", "true"));
        assertThat(validation.check(keys, batch(kv(framed(user), "plain".getBytes()))))
                .isEmpty();
        assertThat(validation.check(keys, batch(kv("plain".getBytes(), framed(user)))))
                .singleElement()
                .extracting(RecordError::message)
                .asString()
                .contains("key");
    }

    @Test
    void deepModeDecodesEachValueAgainstItsSchema() {
        String named = "{\"type\":\"record\",\"name\":\"Named\",\"fields\":[{\"name\":\"n\",\"type\":\"string\"}]}";
        int id = registry.register("orders-value", RegisterRequest.of(null, named), false);
        TopicInfo deep =
                topic(Map.of("confluent.value.schema.validation", "true", "varve.schema.validation.deep", "true"));
        byte[] good = ByteBuffer.allocate(7)
                .put((byte) 0)
                .putInt(id)
                .put((byte) 2)
                .put((byte) 'x')
                .array();
        byte[] truncated =
                ByteBuffer.allocate(6).put((byte) 0).putInt(id).put((byte) 8).array();
        assertThat(validation.check(deep, batch(kv(null, good), kv(null, truncated))))
                .extracting(RecordError::index)
                .containsExactly(1);
    }
}

package io.varve.broker.registry;

import io.varve.broker.api.ProduceRecordCheck;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.protocol.ProducedRecords;
import io.varve.metadata.config.TopicConfigDef;
import io.varve.registry.RegistryException;
import io.varve.registry.SchemaRegistry;
import io.varve.registry.format.ParsedSchema;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Broker-side schema validation with Confluent Server's topic configs: with {@code confluent.value.schema.validation}
 * (or {@code .key.}) a record's value (key) must start with the registry's wire header, magic byte 0 and a 4-byte
 * schema id, of a schema registered (and not deleted) under the subject the topic's subject name strategy gives;
 * with {@code varve.schema.validation.deep} it must also decode as data of that schema. Null values (tombstones)
 * and null keys pass.
 */
public final class SchemaValidation implements ProduceRecordCheck {
    private static final byte MAGIC = 0;
    private static final int HEADER_BYTES = 5;

    private final SchemaRegistry registry;

    public SchemaValidation(SchemaRegistry registry) {
        this.registry = registry;
    }

    @Override
    public boolean appliesTo(TopicInfo topic) {
        Map<String, String> c = topic.configs();
        return !c.isEmpty()
                && ("true".equalsIgnoreCase(c.get(TopicConfigDef.VALUE_SCHEMA_VALIDATION))
                        || "true".equalsIgnoreCase(c.get(TopicConfigDef.KEY_SCHEMA_VALIDATION)));
    }

    @Override
    public List<RecordError> check(TopicInfo topic, ByteBuffer records) {
        Map<String, String> c = topic.configs();
        boolean values = "true".equalsIgnoreCase(c.get(TopicConfigDef.VALUE_SCHEMA_VALIDATION));
        boolean keys = "true".equalsIgnoreCase(c.get(TopicConfigDef.KEY_SCHEMA_VALIDATION));
        boolean deep = "true".equalsIgnoreCase(c.get(TopicConfigDef.SCHEMA_VALIDATION_DEEP));
        String valueStrategy = c.get(TopicConfigDef.VALUE_SUBJECT_NAME_STRATEGY);
        String keyStrategy = c.get(TopicConfigDef.KEY_SUBJECT_NAME_STRATEGY);
        List<RecordError> errors = new ArrayList<>();
        // A batch's records mostly share one schema id: its subject check is done once per batch.
        Checked checked = new Checked();
        ProducedRecords.forEach(records, (index, key, value) -> {
            String problem = null;
            if (keys && key != null) {
                problem = problem(topic.name(), true, keyStrategy, deep, key, checked);
            }
            if (problem == null && values && value != null) {
                problem = problem(topic.name(), false, valueStrategy, deep, value, checked);
            }
            if (problem != null) {
                errors.add(new RecordError(index, problem));
            }
            return true;
        });
        return errors;
    }

    /** Why this key or value may not be appended, or null; {@code checked} remembers each id's subject check. */
    private String problem(
            String topic, boolean isKey, String strategy, boolean deep, ByteBuffer bytes, Checked checked) {
        String what = isKey ? "key" : "value";
        if (bytes.remaining() < HEADER_BYTES || bytes.get(bytes.position()) != MAGIC) {
            return "The record's " + what + " does not start with the schema registry's header (magic byte 0 and"
                    + " a 4-byte schema id).";
        }
        int id = bytes.getInt(bytes.position() + 1);
        long memoKey = (isKey ? 1L << 32 : 0L) | (id & 0xffffffffL);
        String known = checked.get(memoKey);
        if (known == null) {
            known = subjectProblem(topic, isKey, strategy, id, what);
            checked.put(memoKey, known);
        }
        if (!known.isEmpty()) {
            return known;
        }
        if (deep) {
            ParsedSchema schema = registry.parsed(id);
            byte[] array = new byte[bytes.remaining() - HEADER_BYTES];
            bytes.duplicate().position(bytes.position() + HEADER_BYTES).get(array);
            return schema.invalidPayload(array, 0, array.length);
        }
        return null;
    }

    /**
     * The subject checks of one request's records by schema id (and key or value): the last one without boxing, as
     * consecutive records mostly share it, the others in a map made only when a second id appears.
     */
    private static final class Checked {
        private long lastKey = -1;
        private String last;
        private Map<Long, String> others;

        String get(long key) {
            if (key == lastKey) {
                return last;
            }
            return others == null ? null : others.get(key);
        }

        void put(long key, String problem) {
            if (last != null) {
                if (others == null) {
                    others = new java.util.HashMap<>();
                }
                others.put(lastKey, last);
            }
            lastKey = key;
            last = problem;
        }
    }

    /** Why schema {@code id} does not belong to the subject, or the empty string when it does. */
    private String subjectProblem(String topic, boolean isKey, String strategy, int id, String what) {
        Optional<ParsedSchema> schema = parsed(id);
        if (schema.isEmpty()) {
            return "The record's " + what + " names schema id " + id + ", which the registry does not hold.";
        }
        String subject = subject(topic, isKey, strategy, schema.get());
        if (subject == null) {
            return "The record's " + what + " schema id " + id + " has no record name, which the topic's subject"
                    + " name strategy needs.";
        }
        if (!registry.state().isLiveUnder(subject, id)) {
            return "The record's " + what + " schema id " + id + " is not registered under subject '" + subject + "'.";
        }
        return "";
    }

    private Optional<ParsedSchema> parsed(int id) {
        try {
            return Optional.of(registry.parsed(id));
        } catch (RegistryException e) {
            return Optional.empty();
        }
    }

    /** The subject of the topic's strategy: TopicNameStrategy by default. */
    static String subject(String topic, boolean isKey, String strategy, ParsedSchema schema) {
        String s = strategy == null ? "TopicNameStrategy" : strategy.substring(strategy.lastIndexOf('.') + 1);
        return switch (s) {
            case "RecordNameStrategy" -> schema.recordName().orElse(null);
            case "TopicRecordNameStrategy" ->
                schema.recordName().map(name -> topic + "-" + name).orElse(null);
            default -> topic + (isKey ? "-key" : "-value");
        };
    }
}

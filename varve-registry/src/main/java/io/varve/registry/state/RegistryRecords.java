package io.varve.registry.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.varve.registry.compat.CompatibilityLevel;
import io.varve.registry.format.Formats;
import io.varve.registry.format.SchemaReference;
import io.varve.registry.store.SchemaLog.Entry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code _schemas} records, keyed as Confluent keys them so that the topic compacts to the latest of each:
 * {@code SCHEMA} (subject, version) with the version's id, text, references and deleted flag, or a tombstone for a
 * permanent delete; {@code CONFIG} and {@code MODE} (subject, or none for global) with a level or mode, or a
 * tombstone; {@code ID} with the highest id ever given, so that no id is reused after its schema is deleted and
 * compacted away; {@code WRITER} (Varve's own) with the node that takes writes, the leader epoch it claimed and the
 * URL other nodes forward writes to.
 */
public final class RegistryRecords {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private RegistryRecords() {}

    public static Entry schema(SubjectVersion v, StoredSchema s) {
        ObjectNode key = key("SCHEMA", v.subject(), 1);
        key.put("version", v.version());
        ObjectNode value = MAPPER.createObjectNode();
        value.put("subject", v.subject());
        value.put("version", v.version());
        value.put("id", s.id());
        if (!Formats.AVRO.equals(s.schemaType())) {
            value.put("schemaType", s.schemaType());
        }
        if (!s.references().isEmpty()) {
            ArrayNode refs = value.putArray("references");
            for (SchemaReference r : s.references()) {
                refs.addObject()
                        .put("name", r.name())
                        .put("subject", r.subject())
                        .put("version", r.version());
            }
        }
        value.put("schema", s.schema());
        value.put("deleted", v.deleted());
        return new Entry(bytes(key), bytes(value));
    }

    public static Entry schemaTombstone(String subject, int version) {
        ObjectNode key = key("SCHEMA", subject, 1);
        key.put("version", version);
        return new Entry(bytes(key), null);
    }

    public static Entry config(String subject, CompatibilityLevel level) {
        ObjectNode value = null;
        if (level != null) {
            value = MAPPER.createObjectNode().put("compatibilityLevel", level.name());
        }
        return new Entry(bytes(key("CONFIG", subject, 0)), value == null ? null : bytes(value));
    }

    public static Entry mode(String subject, Mode mode) {
        ObjectNode value = null;
        if (mode != null) {
            value = MAPPER.createObjectNode().put("mode", mode.name());
        }
        return new Entry(bytes(key("MODE", subject, 0)), value == null ? null : bytes(value));
    }

    public static Entry maxId(int maxId) {
        return new Entry(
                bytes(key("ID", null, 0)), bytes(MAPPER.createObjectNode().put("maxId", maxId)));
    }

    /** The writer's claim: written by a node when it becomes the leader of the log, before any write of its own. */
    public static Entry writer(RegistryWriter writer) {
        ObjectNode value = MAPPER.createObjectNode()
                .put("nodeId", writer.nodeId())
                .put("leaderEpoch", writer.leaderEpoch())
                .put("url", writer.url());
        return new Entry(bytes(key("WRITER", null, 0)), bytes(value));
    }

    private static ObjectNode key(String type, String subject, int magic) {
        ObjectNode key = MAPPER.createObjectNode();
        key.put("keytype", type);
        if (subject != null) {
            key.put("subject", subject);
        }
        key.put("magic", magic);
        return key;
    }

    static JsonNode parse(byte[] bytes) {
        try {
            return MAPPER.readTree(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("A _schemas record is not JSON", e);
        }
    }

    static List<SchemaReference> references(JsonNode value) {
        List<SchemaReference> out = new ArrayList<>();
        for (JsonNode r : value.path("references")) {
            out.add(new SchemaReference(
                    r.path("name").asText(),
                    r.path("subject").asText(),
                    r.path("version").asInt()));
        }
        return List.copyOf(out);
    }

    private static byte[] bytes(JsonNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

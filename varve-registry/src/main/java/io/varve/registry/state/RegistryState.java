package io.varve.registry.state;

import com.fasterxml.jackson.databind.JsonNode;
import io.varve.registry.compat.CompatibilityLevel;
import io.varve.registry.format.Formats;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The registry's state, replayed from its log: subjects and their versions, schemas by id and by content, the
 * compatibility levels and modes (the global ones under the empty subject), the highest id ever given. One thread
 * applies records (the registry's writer lock); readers may read at any time from other threads.
 */
public final class RegistryState {
    public static final String GLOBAL = "";

    private final Map<String, NavigableMap<Integer, SubjectVersion>> subjects = new ConcurrentHashMap<>();
    private final Map<Integer, StoredSchema> schemas = new ConcurrentHashMap<>();
    private final Map<String, Integer> idsByContent = new ConcurrentHashMap<>();
    private final Map<String, CompatibilityLevel> configs = new ConcurrentHashMap<>();
    private final Map<String, Mode> modes = new ConcurrentHashMap<>();
    private volatile int maxId;
    private volatile RegistryWriter writer;

    /** Applies one record of the log. Unknown key types (written by a newer version) are skipped. */
    public void apply(byte[] keyBytes, byte[] valueBytes) {
        JsonNode key = RegistryRecords.parse(keyBytes);
        JsonNode value = valueBytes == null ? null : RegistryRecords.parse(valueBytes);
        String subject = key.hasNonNull("subject") ? key.get("subject").asText() : GLOBAL;
        switch (key.path("keytype").asText()) {
            case "SCHEMA" -> applySchema(subject, key.path("version").asInt(), value);
            case "CONFIG" -> {
                if (value == null) {
                    configs.remove(subject);
                } else {
                    configs.put(
                            subject,
                            CompatibilityLevel.parse(
                                    value.path("compatibilityLevel").asText()));
                }
            }
            case "MODE" -> {
                if (value == null) {
                    modes.remove(subject);
                } else {
                    modes.put(subject, Mode.parse(value.path("mode").asText()));
                }
            }
            case "ID" -> {
                if (value != null) {
                    maxId = Math.max(maxId, value.path("maxId").asInt());
                }
            }
            case "WRITER" -> {
                if (value != null) {
                    writer = new RegistryWriter(
                            value.path("nodeId").asInt(),
                            value.path("leaderEpoch").asInt(),
                            value.path("url").asText());
                }
            }
            default -> {}
        }
    }

    /** The last writer that claimed the log, if any did. */
    public Optional<RegistryWriter> writer() {
        return Optional.ofNullable(writer);
    }

    private void applySchema(String subject, int version, JsonNode value) {
        NavigableMap<Integer, SubjectVersion> versions =
                subjects.computeIfAbsent(subject, s -> new ConcurrentSkipListMap<>());
        if (value == null) {
            SubjectVersion removed = versions.remove(version);
            if (versions.isEmpty()) {
                subjects.remove(subject);
            }
            if (removed != null && !idInUse(removed.id())) {
                StoredSchema s = schemas.remove(removed.id());
                if (s != null) {
                    idsByContent.remove(s.contentKey());
                }
            }
            return;
        }
        int id = value.path("id").asInt();
        StoredSchema schema = new StoredSchema(
                id,
                Formats.normalizeType(value.path("schemaType").asText(null)),
                value.path("schema").asText(),
                RegistryRecords.references(value));
        schemas.putIfAbsent(id, schema);
        idsByContent.putIfAbsent(schema.contentKey(), id);
        versions.put(
                version,
                new SubjectVersion(subject, version, id, value.path("deleted").asBoolean(false)));
        maxId = Math.max(maxId, id);
    }

    private boolean idInUse(int id) {
        for (NavigableMap<Integer, SubjectVersion> versions : subjects.values()) {
            for (SubjectVersion v : versions.values()) {
                if (v.id() == id) {
                    return true;
                }
            }
        }
        return false;
    }

    public int maxId() {
        return maxId;
    }

    public Optional<StoredSchema> schema(int id) {
        return Optional.ofNullable(schemas.get(id));
    }

    public Optional<Integer> idOf(String contentKey) {
        return Optional.ofNullable(idsByContent.get(contentKey));
    }

    /** The versions of {@code subject} in order, soft-deleted ones included; empty when it has none. */
    public List<SubjectVersion> versions(String subject) {
        NavigableMap<Integer, SubjectVersion> v = subjects.get(subject);
        return v == null ? List.of() : List.copyOf(v.values());
    }

    /** Versions of {@code subject}, the soft-deleted ones only when {@code deleted}. */
    public List<SubjectVersion> versions(String subject, boolean deleted) {
        List<SubjectVersion> out = new ArrayList<>();
        for (SubjectVersion v : versions(subject)) {
            if (deleted || !v.deleted()) {
                out.add(v);
            }
        }
        return out;
    }

    public Optional<SubjectVersion> version(String subject, int version) {
        NavigableMap<Integer, SubjectVersion> v = subjects.get(subject);
        return v == null ? Optional.empty() : Optional.ofNullable(v.get(version));
    }

    public List<String> subjects() {
        return new ArrayList<>(subjects.keySet());
    }

    public Optional<CompatibilityLevel> config(String subject) {
        return Optional.ofNullable(configs.get(subject));
    }

    public Optional<Mode> mode(String subject) {
        return Optional.ofNullable(modes.get(subject));
    }

    /** True when {@code id} is the schema of a live version of {@code subject} (the broker's validation). */
    public boolean isLiveUnder(String subject, int id) {
        NavigableMap<Integer, SubjectVersion> v = subjects.get(subject);
        if (v == null) {
            return false;
        }
        for (SubjectVersion sv : v.values()) {
            if (sv.id() == id && !sv.deleted()) {
                return true;
            }
        }
        return false;
    }
}

package io.varve.registry.format;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion.VersionFlag;
import com.networknt.schema.SpecVersionDetector;
import com.networknt.schema.ValidationMessage;
import com.networknt.schema.resource.AllowSchemaLoader;
import io.varve.registry.RegistryException;
import io.varve.registry.compat.JsonSchemaCompatibility;
import java.io.IOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * JSON Schema, drafts 4 to 2020-12 (draft-07 when {@code $schema} does not say), checked against its meta-schema and
 * compiled by networknt's validator; references are other documents a {@code $ref} names. Compatibility follows
 * Confluent's documented rules for JSON Schema ({@link JsonSchemaCompatibility}).
 */
final class JsonSchemaFormat implements SchemaFormat {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final ObjectMapper SORTED =
            new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
    /** A base for documents without an {@code $id}, so that relative references resolve to a name we can look up. */
    static final String BASE = "urn:varve:schema:";

    @Override
    public String type() {
        return Formats.JSON;
    }

    @Override
    public ParsedSchema parse(String text, List<ResolvedReference> references) {
        JsonNode node;
        try {
            node = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw RegistryException.invalidSchema("Invalid schema " + text + ", details: " + e.getOriginalMessage());
        }
        if (node == null || !(node.isObject() || node.isBoolean())) {
            throw RegistryException.invalidSchema("Invalid schema " + text + ", details: not a JSON object");
        }
        Map<String, JsonNode> referenced = new HashMap<>();
        collect(references, referenced);
        VersionFlag version = node.isObject()
                ? SpecVersionDetector.detectOptionalVersion(node, false).orElse(VersionFlag.V7)
                : VersionFlag.V7;
        Map<String, String> texts = new HashMap<>();
        referenced.forEach((name, schema) -> texts.put(name, schema.toString()));
        JsonSchemaFactory factory = JsonSchemaFactory.getInstance(
                version,
                b -> b.schemaLoaders(l -> l.schemas(iri -> lookUp(iri, texts))
                        // Only the schema's references and the bundled meta-schemas: never a $ref from the network.
                        .add(new AllowSchemaLoader(iri -> iri.toString().startsWith("classpath:")))));
        try {
            Set<ValidationMessage> metaErrors =
                    factory.getSchema(SchemaLocation.of(metaSchema(version))).validate(node);
            if (!metaErrors.isEmpty()) {
                throw RegistryException.invalidSchema("Invalid schema " + text + ", details: "
                        + metaErrors.iterator().next().getMessage());
            }
            JsonSchema compiled = factory.getSchema(SchemaLocation.of(BASE + "root"), node);
            compiled.initializeValidators();
            return new Parsed(node, referenced, compiled);
        } catch (RegistryException e) {
            throw e;
        } catch (RuntimeException e) {
            throw RegistryException.invalidSchema("Invalid schema " + text + ", details: " + e.getMessage());
        }
    }

    private static void collect(List<ResolvedReference> references, Map<String, JsonNode> into) {
        for (ResolvedReference r : references) {
            if (into.containsKey(r.name())) {
                continue;
            }
            try {
                into.put(r.name(), MAPPER.readTree(r.schema()));
            } catch (JsonProcessingException e) {
                throw RegistryException.invalidSchema("Invalid referenced schema " + r.name());
            }
            collect(r.references(), into);
        }
    }

    private static String lookUp(String iri, Map<String, String> texts) {
        String found = texts.get(iri);
        if (found == null && iri.startsWith(BASE)) {
            found = texts.get(iri.substring(BASE.length()));
        }
        return found;
    }

    private static String metaSchema(VersionFlag version) {
        return switch (version) {
            case V4 -> "http://json-schema.org/draft-04/schema#";
            case V6 -> "http://json-schema.org/draft-06/schema#";
            case V7 -> "http://json-schema.org/draft-07/schema#";
            case V201909 -> "https://json-schema.org/draft/2019-09/schema";
            case V202012 -> "https://json-schema.org/draft/2020-12/schema";
        };
    }

    static JsonNode sortedCopy(JsonNode node) {
        if (node.isObject()) {
            TreeMap<String, JsonNode> sorted = new TreeMap<>();
            Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> f = fields.next();
                sorted.put(f.getKey(), sortedCopy(f.getValue()));
            }
            ObjectNode out = SORTED.createObjectNode();
            sorted.forEach(out::set);
            return out;
        }
        if (node.isArray()) {
            var out = SORTED.createArrayNode();
            node.forEach(e -> out.add(sortedCopy(e)));
            return out;
        }
        return node;
    }

    private static final class Parsed implements ParsedSchema {
        private final JsonNode node;
        private final Map<String, JsonNode> referenced;
        private final JsonSchema compiled;

        Parsed(JsonNode node, Map<String, JsonNode> referenced, JsonSchema compiled) {
            this.node = node;
            this.referenced = referenced;
            this.compiled = compiled;
        }

        @Override
        public String type() {
            return Formats.JSON;
        }

        @Override
        public String canonical() {
            return node.toString();
        }

        @Override
        public String normalized() {
            return sortedCopy(node).toString();
        }

        @Override
        public List<String> readsDataOf(ParsedSchema writer) {
            Parsed w = (Parsed) writer;
            return new JsonSchemaCompatibility(node, referenced, w.node, w.referenced).check();
        }

        @Override
        public Optional<String> recordName() {
            JsonNode title = node.get("title");
            return title != null && title.isTextual() ? Optional.of(title.asText()) : Optional.empty();
        }

        @Override
        public String toJson(byte[] payload, int offset, int length) {
            return invalidPayload(payload, offset, length) == null
                    ? new String(payload, offset, length, java.nio.charset.StandardCharsets.UTF_8)
                    : null;
        }

        @Override
        public String invalidPayload(byte[] payload, int offset, int length) {
            JsonNode value;
            try {
                value = MAPPER.readTree(payload, offset, length);
            } catch (IOException e) {
                return "The value is not JSON: " + e.getMessage();
            }
            Set<ValidationMessage> errors = compiled.validate(value);
            return errors.isEmpty()
                    ? null
                    : "The value does not match its JSON schema: "
                            + errors.iterator().next().getMessage();
        }
    }
}

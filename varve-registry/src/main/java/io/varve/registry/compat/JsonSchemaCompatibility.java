package io.varve.registry.compat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Confluent's documented compatibility rules for JSON Schema, written for Varve: can a reader with one schema accept
 * every document a writer's schema accepts? The rules that matter most turn on the content model: a closed object
 * ({@code additionalProperties: false}) may gain properties, an open one may not (old data may already hold that name
 * with any type), a partially open one only properties its {@code additionalProperties} schema covers; types, enums
 * and bounds may widen, never narrow. {@code $ref}s are followed into the document or its references (depth bounded).
 */
public final class JsonSchemaCompatibility {
    private static final int MAX_DEPTH = 64;

    private final Document reader;
    private final Document writer;
    private final List<String> messages = new ArrayList<>();

    private record Document(JsonNode root, Map<String, JsonNode> references) {}

    public JsonSchemaCompatibility(
            JsonNode reader, Map<String, JsonNode> readerRefs, JsonNode writer, Map<String, JsonNode> writerRefs) {
        this.reader = new Document(reader, readerRefs);
        this.writer = new Document(writer, writerRefs);
    }

    /** One message per incompatibility, Confluent's error type first; empty when compatible. */
    public List<String> check() {
        compare(reader.root, writer.root, "#", 0);
        return messages;
    }

    private void problem(String type, String path, String description) {
        messages.add("{errorType:'" + type + "', description:'" + description + " at path '" + path + "''}");
    }

    private JsonNode resolve(Document doc, JsonNode node, int depth) {
        for (int i = 0; i < MAX_DEPTH && node != null && node.isObject() && node.has("$ref"); i++) {
            String ref = node.get("$ref").asText();
            int hash = ref.indexOf('#');
            String document = hash < 0 ? ref : ref.substring(0, hash);
            String pointer = hash < 0 ? "" : ref.substring(hash + 1);
            JsonNode base = document.isEmpty() ? doc.root : doc.references.get(document);
            if (base == null) {
                return node;
            }
            node = pointer.isEmpty() ? base : base.at(pointer);
            if (node.isMissingNode()) {
                return null;
            }
        }
        return node;
    }

    private void compare(JsonNode r, JsonNode w, String path, int depth) {
        if (depth > MAX_DEPTH) {
            return;
        }
        r = resolve(reader, r, depth);
        w = resolve(writer, w, depth);
        if (r == null || w == null || acceptsAll(r) || rejectsAll(w)) {
            return;
        }
        if (rejectsAll(r)) {
            problem("TYPE_NARROWED", path, "The new schema accepts nothing the old one accepted");
            return;
        }
        if (combined(r, w, path, depth)) {
            return;
        }
        Set<String> rTypes = types(r);
        Set<String> wTypes = types(w);
        if (rTypes != null) {
            if (wTypes == null) {
                problem("TYPE_NARROWED", path, "A type " + rTypes + " was added");
            } else {
                for (String t : wTypes) {
                    if (!rTypes.contains(t) && !(t.equals("integer") && rTypes.contains("number"))) {
                        problem(
                                rTypes.size() < wTypes.size() ? "TYPE_NARROWED" : "TYPE_CHANGED",
                                path,
                                "The type changed from " + wTypes + " to " + rTypes);
                        return;
                    }
                }
            }
        }
        enums(r, w, path);
        upperBound(r, w, "maxLength", path, "MAX_LENGTH");
        lowerBound(r, w, "minLength", path, "MIN_LENGTH");
        upperBound(r, w, "maximum", path, "MAXIMUM");
        lowerBound(r, w, "minimum", path, "MINIMUM");
        upperBound(r, w, "exclusiveMaximum", path, "EXCLUSIVE_MAXIMUM");
        lowerBound(r, w, "exclusiveMinimum", path, "EXCLUSIVE_MINIMUM");
        upperBound(r, w, "maxItems", path, "MAX_ITEMS");
        lowerBound(r, w, "minItems", path, "MIN_ITEMS");
        upperBound(r, w, "maxProperties", path, "MAX_PROPERTIES");
        lowerBound(r, w, "minProperties", path, "MIN_PROPERTIES");
        if (r.has("pattern") && !r.get("pattern").equals(w.get("pattern"))) {
            problem(w.has("pattern") ? "PATTERN_CHANGED" : "PATTERN_ADDED", path, "The pattern changed");
        }
        if (r.has("multipleOf") && r.get("multipleOf").isNumber()) {
            JsonNode wm = w.get("multipleOf");
            double rm = r.get("multipleOf").asDouble();
            if (wm == null || !wm.isNumber() || Math.abs(wm.asDouble() / rm - Math.rint(wm.asDouble() / rm)) > 1e-9) {
                problem(wm == null ? "MULTIPLE_OF_ADDED" : "MULTIPLE_OF_CHANGED", path, "multipleOf changed");
            }
        }
        if (r.path("uniqueItems").asBoolean(false) && !w.path("uniqueItems").asBoolean(false)) {
            problem("UNIQUE_ITEMS_ADDED", path, "uniqueItems was added");
        }
        if (r.has("items") && r.get("items").isObject()) {
            if (w.has("items") && w.get("items").isObject()) {
                compare(r.get("items"), w.get("items"), path + "/items", depth + 1);
            } else if (!w.has("items")) {
                compare(r.get("items"), null, path + "/items", depth + 1);
            }
        }
        objects(r, w, path, depth);
    }

    /** Handles anyOf/oneOf on either side; true when it decided the comparison. */
    private boolean combined(JsonNode r, JsonNode w, String path, int depth) {
        List<JsonNode> rBranches = branches(r);
        List<JsonNode> wBranches = branches(w);
        if (rBranches == null && wBranches == null) {
            return false;
        }
        List<JsonNode> writers = wBranches == null ? List.of(w) : wBranches;
        List<JsonNode> readers = rBranches == null ? List.of(r) : rBranches;
        for (int i = 0; i < writers.size(); i++) {
            boolean read = false;
            for (JsonNode candidate : readers) {
                JsonSchemaCompatibility sub = new JsonSchemaCompatibility(
                        rootOf(reader, candidate),
                        reader.references,
                        rootOf(writer, writers.get(i)),
                        writer.references);
                if (sub.check().isEmpty()) {
                    read = true;
                    break;
                }
            }
            if (!read) {
                problem(
                        rBranches != null && wBranches != null
                                ? "COMBINED_TYPE_SUBSCHEMAS_CHANGED"
                                : "COMBINED_TYPE_CHANGED",
                        path,
                        "A subschema of the old schema is accepted by no subschema of the new one");
            }
        }
        return true;
    }

    /** A subschema to compare on its own, keeping the document's definitions for local $refs. */
    private static JsonNode rootOf(Document doc, JsonNode node) {
        if (node.isObject() && doc.root.isObject() && node != doc.root) {
            var copy = ((com.fasterxml.jackson.databind.node.ObjectNode) node).deepCopy();
            for (String key : List.of("definitions", "$defs")) {
                if (doc.root.has(key) && !copy.has(key)) {
                    copy.set(key, doc.root.get(key));
                }
            }
            return copy;
        }
        return node;
    }

    private static List<JsonNode> branches(JsonNode n) {
        for (String key : List.of("anyOf", "oneOf")) {
            JsonNode b = n.get(key);
            if (b != null && b.isArray()) {
                List<JsonNode> out = new ArrayList<>();
                b.forEach(out::add);
                return out;
            }
        }
        return null;
    }

    private void objects(JsonNode r, JsonNode w, String path, int depth) {
        if (!couldBeObject(r) || !couldBeObject(w)) {
            return;
        }
        JsonNode rProps = r.path("properties");
        JsonNode wProps = w.path("properties");
        JsonNode rAdditional = r.get("additionalProperties");
        JsonNode wAdditional = w.get("additionalProperties");
        Set<String> wRequired = strings(w.get("required"));
        for (String name : strings(r.get("required"))) {
            if (!wRequired.contains(name)) {
                problem("REQUIRED_PROPERTY_ADDED", path + "/required", "The property '" + name + "' became required");
            }
        }
        Iterator<String> wNames = wProps.fieldNames();
        while (wNames.hasNext()) {
            String name = wNames.next();
            String at = path + "/properties/" + name;
            if (rProps.has(name)) {
                compare(rProps.get(name), wProps.get(name), at, depth + 1);
            } else if (isClosed(rAdditional)) {
                problem(
                        "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL",
                        at,
                        "The property '" + name + "' was removed from a closed content model");
            } else if (rAdditional != null && rAdditional.isObject()) {
                int before = messages.size();
                compare(rAdditional, wProps.get(name), at, depth + 1);
                if (messages.size() > before) {
                    problem(
                            "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
                            at,
                            "The property '" + name + "' was removed and additionalProperties does not cover it");
                }
            }
        }
        Iterator<String> rNames = rProps.fieldNames();
        while (rNames.hasNext()) {
            String name = rNames.next();
            if (wProps.has(name) || isClosed(wAdditional) || acceptsAll(rProps.get(name))) {
                continue;
            }
            String at = path + "/properties/" + name;
            if (wAdditional != null && wAdditional.isObject()) {
                int before = messages.size();
                compare(rProps.get(name), wAdditional, at, depth + 1);
                if (messages.size() > before) {
                    problem(
                            "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
                            at,
                            "The property '" + name + "' was added and the old additionalProperties does not match it");
                }
            } else {
                problem(
                        "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
                        at,
                        "The property '" + name + "' was added to an open content model");
            }
        }
        if (isClosed(rAdditional) && !isClosed(wAdditional)) {
            problem("ADDITIONAL_PROPERTIES_REMOVED", path, "additionalProperties was closed");
        } else if (rAdditional != null && rAdditional.isObject()) {
            if (wAdditional == null || wAdditional.isBoolean() && wAdditional.asBoolean()) {
                problem("ADDITIONAL_PROPERTIES_NARROWED", path, "additionalProperties was narrowed");
            } else if (wAdditional.isObject()) {
                compare(rAdditional, wAdditional, path + "/additionalProperties", depth + 1);
            }
        }
    }

    private void enums(JsonNode r, JsonNode w, String path) {
        JsonNode rEnum = r.get("enum");
        if (rEnum == null || !rEnum.isArray()) {
            return;
        }
        JsonNode wEnum = w.get("enum");
        if (wEnum == null || !wEnum.isArray()) {
            problem("ENUM_ARRAY_NARROWED", path, "An enum was added");
            return;
        }
        Set<JsonNode> allowed = new HashSet<>();
        rEnum.forEach(allowed::add);
        for (JsonNode v : wEnum) {
            if (!allowed.contains(v)) {
                problem("ENUM_ARRAY_NARROWED", path, "The enum value " + v + " was removed");
            }
        }
    }

    private void upperBound(JsonNode r, JsonNode w, String key, String path, String type) {
        JsonNode rv = r.get(key);
        if (rv == null || !rv.isNumber()) {
            return;
        }
        JsonNode wv = w.get(key);
        if (wv == null || !wv.isNumber()) {
            problem(type + "_ADDED", path, key + " was added");
        } else if (wv.asDouble() > rv.asDouble()) {
            problem(type + "_DECREASED", path, key + " decreased");
        }
    }

    private void lowerBound(JsonNode r, JsonNode w, String key, String path, String type) {
        JsonNode rv = r.get(key);
        if (rv == null || !rv.isNumber()) {
            return;
        }
        JsonNode wv = w.get(key);
        if (wv == null || !wv.isNumber()) {
            problem(type + "_ADDED", path, key + " was added");
        } else if (wv.asDouble() < rv.asDouble()) {
            problem(type + "_INCREASED", path, key + " increased");
        }
    }

    private static boolean isClosed(JsonNode additional) {
        return additional != null && additional.isBoolean() && !additional.asBoolean();
    }

    private static boolean acceptsAll(JsonNode n) {
        return n.isBoolean() && n.asBoolean() || n.isObject() && n.isEmpty();
    }

    private static boolean rejectsAll(JsonNode n) {
        return n.isBoolean() && !n.asBoolean();
    }

    private static boolean couldBeObject(JsonNode n) {
        Set<String> t = types(n);
        return t == null
                ? n.has("properties") || n.has("additionalProperties") || n.has("required")
                : t.contains("object");
    }

    /** The types a schema allows, or null when it does not say. */
    private static Set<String> types(JsonNode n) {
        JsonNode t = n.get("type");
        if (t == null) {
            return null;
        }
        Set<String> out = new HashSet<>();
        if (t.isArray()) {
            t.forEach(e -> out.add(e.asText()));
        } else {
            out.add(t.asText());
        }
        return out;
    }

    private static Set<String> strings(JsonNode array) {
        Set<String> out = new HashSet<>();
        if (array != null && array.isArray()) {
            array.forEach(e -> out.add(e.asText()));
        }
        return out;
    }
}

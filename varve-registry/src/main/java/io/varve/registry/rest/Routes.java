package io.varve.registry.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import io.varve.registry.RegisterRequest;
import io.varve.registry.RegistryException;
import io.varve.registry.SchemaRegistry;
import io.varve.registry.format.Formats;
import io.varve.registry.format.SchemaReference;
import io.varve.registry.rest.RegistryAccess.Operation;
import io.varve.registry.state.RegistryState;
import io.varve.registry.state.StoredSchema;
import io.varve.registry.state.SubjectVersion;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Confluent Schema Registry's paths, each mapped to one {@link SchemaRegistry} call after the {@link Guard}'s check:
 * reads of a subject need DESCRIBE on it, registering WRITE, deleting DELETE, reading a level or mode
 * DESCRIBE_CONFIGS and changing one ALTER_CONFIGS (on the subject, or on the registry for the global ones); lists
 * show only the subjects the principal may describe, and a schema by id needs one of its subjects.
 */
final class Routes {
    private final SchemaRegistry registry;

    Routes(SchemaRegistry registry) {
        this.registry = registry;
    }

    void handle(HttpExchange ex, Guard guard) throws IOException {
        List<String> p = HttpExchangeIo.segments(ex);
        Map<String, String> q = HttpExchangeIo.query(ex);
        String method = ex.getRequestMethod();
        int n = p.size();
        String first = n > 0 ? p.get(0) : "";
        switch (first) {
            case "" -> ok(ex, Map.of());
            case "schemas" -> schemas(ex, method, p, q, guard);
            case "subjects" -> subjects(ex, method, p, q, guard);
            case "config" -> config(ex, method, n > 1 ? p.get(1) : RegistryState.GLOBAL, n, q, guard);
            case "mode" -> mode(ex, method, n > 1 ? p.get(1) : RegistryState.GLOBAL, n, q, guard);
            case "compatibility" -> compatibility(ex, method, p, q, guard);
            default -> notFound();
        }
    }

    private void schemas(HttpExchange ex, String method, List<String> p, Map<String, String> q, Guard guard)
            throws IOException {
        requireMethod(method, "GET");
        int n = p.size();
        boolean deleted = flag(q, "deleted");
        if (n == 2 && p.get(1).equals("types")) {
            ok(ex, registry.schemaTypes());
        } else if (n == 1) {
            List<Object> out = new ArrayList<>();
            for (String s : guard.describable(registry.subjects(deleted, q.get("subjectPrefix")))) {
                List<SubjectVersion> versions = registry.state().versions(s, deleted);
                if (flag(q, "latestOnly")) {
                    versions = versions.subList(versions.size() - 1, versions.size());
                }
                for (SubjectVersion v : versions) {
                    out.add(versionBody(v));
                }
            }
            ok(ex, out);
        } else if (n >= 3 && p.get(1).equals("ids")) {
            int id = parseId(p.get(2));
            StoredSchema s = registry.schema(id);
            List<SubjectVersion> holders = registry.versionsOf(id, true).stream()
                    .filter(v -> guard.mayDescribe(v.subject()))
                    .toList();
            if (holders.isEmpty() && !registry.versionsOf(id, true).isEmpty()) {
                guard.require(
                        Operation.DESCRIBE, registry.versionsOf(id, true).get(0).subject());
            }
            if (n == 3) {
                Map<String, Object> body = schemaBody(s);
                if (flag(q, "fetchMaxId")) {
                    body.put("maxId", registry.state().maxId());
                }
                ok(ex, body);
            } else if (n == 4 && p.get(3).equals("schema")) {
                HttpExchangeIo.raw(ex, s.schema());
            } else if (n == 4 && p.get(3).equals("subjects")) {
                ok(
                        ex,
                        registry.versionsOf(id, deleted).stream()
                                .map(SubjectVersion::subject)
                                .filter(guard::mayDescribe)
                                .distinct()
                                .toList());
            } else if (n == 4 && p.get(3).equals("versions")) {
                List<Object> out = new ArrayList<>();
                for (SubjectVersion v : registry.versionsOf(id, deleted)) {
                    if (!guard.mayDescribe(v.subject())) {
                        continue;
                    }
                    out.add(ordered("subject", v.subject(), "version", v.version()));
                }
                ok(ex, out);
            } else {
                notFound();
            }
        } else {
            notFound();
        }
    }

    private void subjects(HttpExchange ex, String method, List<String> p, Map<String, String> q, Guard guard)
            throws IOException {
        int n = p.size();
        boolean deleted = flag(q, "deleted");
        if (n == 1) {
            requireMethod(method, "GET");
            ok(ex, guard.describable(registry.subjects(deleted, q.get("subjectPrefix"))));
            return;
        }
        String subject = p.get(1);
        guard.require(
                switch (method) {
                    case "DELETE" -> Operation.DELETE;
                    case "POST" -> n == 3 ? Operation.WRITE : Operation.DESCRIBE;
                    default -> Operation.DESCRIBE;
                },
                subject);
        if (n == 2) {
            if (method.equals("POST")) {
                SubjectVersion v = registry.lookUp(subject, request(ex), flag(q, "normalize"), deleted);
                ok(ex, versionBody(v));
            } else if (method.equals("DELETE")) {
                ok(ex, registry.deleteSubject(subject, flag(q, "permanent")));
            } else {
                throw methodNotAllowed();
            }
            return;
        }
        if (!p.get(2).equals("versions")) {
            notFound();
        }
        if (n == 3) {
            if (method.equals("GET")) {
                ok(ex, registry.versions(subject, deleted));
            } else if (method.equals("POST")) {
                int id = registry.register(subject, request(ex), flag(q, "normalize"));
                ok(ex, Map.of("id", id));
            } else {
                throw methodNotAllowed();
            }
            return;
        }
        String version = p.get(3);
        if (n == 4) {
            if (method.equals("GET")) {
                ok(ex, versionBody(registry.version(subject, version, deleted)));
            } else if (method.equals("DELETE")) {
                ok(ex, registry.deleteVersion(subject, version, flag(q, "permanent")));
            } else {
                throw methodNotAllowed();
            }
        } else if (n == 5 && p.get(4).equals("schema")) {
            requireMethod(method, "GET");
            SubjectVersion v = registry.version(subject, version, deleted);
            HttpExchangeIo.raw(ex, registry.schema(v.id()).schema());
        } else if (n == 5 && p.get(4).equals("referencedby")) {
            requireMethod(method, "GET");
            SubjectVersion v = registry.version(subject, version, true);
            ok(ex, registry.referencedBy(subject, v.version()));
        } else {
            notFound();
        }
    }

    private void config(HttpExchange ex, String method, String subject, int n, Map<String, String> q, Guard guard)
            throws IOException {
        if (n > 2) {
            notFound();
        }
        guard.require(method.equals("GET") ? Operation.DESCRIBE_CONFIGS : Operation.ALTER_CONFIGS, subject);
        switch (method) {
            case "GET" ->
                ok(
                        ex,
                        Map.of(
                                "compatibilityLevel",
                                registry.config(subject, flag(q, "defaultToGlobal"))
                                        .name()));
            case "PUT" -> {
                JsonNode body = HttpExchangeIo.body(ex);
                String level = body.path("compatibility").asText(null);
                if (level == null) {
                    level = body.path("compatibilityLevel").asText(null);
                }
                ok(
                        ex,
                        Map.of(
                                "compatibility",
                                registry.setConfig(subject, level).name()));
            }
            case "DELETE" ->
                ok(
                        ex,
                        Map.of(
                                "compatibilityLevel",
                                registry.deleteConfig(subject).name()));
            default -> throw methodNotAllowed();
        }
    }

    private void mode(HttpExchange ex, String method, String subject, int n, Map<String, String> q, Guard guard)
            throws IOException {
        if (n > 2) {
            notFound();
        }
        guard.require(method.equals("GET") ? Operation.DESCRIBE_CONFIGS : Operation.ALTER_CONFIGS, subject);
        switch (method) {
            case "GET" ->
                ok(
                        ex,
                        Map.of(
                                "mode",
                                registry.configuredMode(subject, flag(q, "defaultToGlobal"))
                                        .name()));
            case "PUT" -> {
                JsonNode body = HttpExchangeIo.body(ex);
                ok(
                        ex,
                        Map.of(
                                "mode",
                                registry.setMode(subject, body.path("mode").asText(null), flag(q, "force"))
                                        .name()));
            }
            case "DELETE" -> ok(ex, Map.of("mode", registry.deleteMode(subject).name()));
            default -> throw methodNotAllowed();
        }
    }

    private void compatibility(HttpExchange ex, String method, List<String> p, Map<String, String> q, Guard guard)
            throws IOException {
        int n = p.size();
        if (n < 4 || !p.get(1).equals("subjects") || !p.get(3).equals("versions") || n > 5) {
            notFound();
        }
        requireMethod(method, "POST");
        String subject = p.get(2);
        guard.require(Operation.DESCRIBE, subject);
        List<String> messages = registry.testCompatibility(subject, n == 5 ? p.get(4) : null, request(ex));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("is_compatible", messages.isEmpty());
        if (flag(q, "verbose")) {
            body.put("messages", messages);
        }
        ok(ex, body);
    }

    private Map<String, Object> versionBody(SubjectVersion v) {
        StoredSchema s = registry.schema(v.id());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("subject", v.subject());
        body.put("version", v.version());
        body.put("id", v.id());
        body.putAll(schemaBody(s));
        return body;
    }

    private static Map<String, Object> schemaBody(StoredSchema s) {
        Map<String, Object> body = new LinkedHashMap<>();
        if (!Formats.AVRO.equals(s.schemaType())) {
            body.put("schemaType", s.schemaType());
        }
        if (!s.references().isEmpty()) {
            List<Object> refs = new ArrayList<>();
            for (SchemaReference r : s.references()) {
                refs.add(ordered("name", r.name(), "subject", r.subject(), "version", r.version()));
            }
            body.put("references", refs);
        }
        body.put("schema", s.schema());
        return body;
    }

    private static RegisterRequest request(HttpExchange ex) throws IOException {
        JsonNode body = HttpExchangeIo.body(ex);
        JsonNode schema = body.get("schema");
        if (schema == null || !schema.isTextual()) {
            throw RegistryException.invalidSchema("Empty schema");
        }
        List<SchemaReference> refs = new ArrayList<>();
        for (JsonNode r : body.path("references")) {
            refs.add(new SchemaReference(
                    r.path("name").asText(null),
                    r.path("subject").asText(null),
                    r.path("version").asInt(-1)));
        }
        return new RegisterRequest(
                schema.asText(),
                body.path("schemaType").asText(null),
                refs,
                body.hasNonNull("id") ? body.get("id").asInt() : null,
                body.hasNonNull("version") ? body.get("version").asInt() : null);
    }

    private static int parseId(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw RegistryException.schemaNotFound("Schema " + text + " not found");
        }
    }

    private static boolean flag(Map<String, String> q, String name) {
        return Boolean.parseBoolean(q.get(name));
    }

    private static void ok(HttpExchange ex, Object body) throws IOException {
        HttpExchangeIo.json(ex, 200, body);
    }

    private static void requireMethod(String method, String expected) {
        if (!method.equals(expected)) {
            throw methodNotAllowed();
        }
    }

    private static RegistryException methodNotAllowed() {
        return new RegistryException(405, 405, "HTTP 405 Method Not Allowed");
    }

    private static void notFound() {
        throw new RegistryException(404, 404, "HTTP 404 Not Found");
    }

    /** A JSON object whose fields keep Confluent's order ({@code Map.of} iterates in an order that varies by run). */
    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> map = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}

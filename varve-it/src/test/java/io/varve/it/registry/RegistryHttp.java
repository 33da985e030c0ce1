package io.varve.it.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small client of the registry's REST API for the tests: JSON in, status and JSON out. */
final class RegistryHttp {
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    record Reply(int status, JsonNode body) {
        int errorCode() {
            return body.path("error_code").asInt();
        }
    }

    private final String base;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    RegistryHttp(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    Reply call(String method, String path, JsonNode body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        b.header("Content-Type", CONTENT_TYPE);
        b.method(
                method,
                body == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body.toString()));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode json;
        try {
            json = MAPPER.readTree(r.body());
        } catch (Exception notJson) {
            json = MAPPER.getNodeFactory().textNode(r.body());
        }
        return new Reply(r.statusCode(), json);
    }

    Reply get(String path) throws Exception {
        return call("GET", path, null);
    }

    Reply register(String subject, String type, String schema, ObjectNode... references) throws Exception {
        return call("POST", "/subjects/" + subject + "/versions", schemaBody(type, schema, references));
    }

    int registerOk(String subject, String type, String schema, ObjectNode... references) throws Exception {
        Reply r = register(subject, type, schema, references);
        if (r.status() != 200) {
            throw new AssertionError("registering under " + subject + " answered " + r.status() + " " + r.body());
        }
        return r.body().get("id").asInt();
    }

    static ObjectNode schemaBody(String type, String schema, ObjectNode... references) {
        ObjectNode body = MAPPER.createObjectNode().put("schema", schema);
        if (type != null) {
            body.put("schemaType", type);
        }
        if (references.length > 0) {
            var refs = body.putArray("references");
            for (ObjectNode r : references) {
                refs.add(r);
            }
        }
        return body;
    }

    static ObjectNode reference(String name, String subject, int version) {
        return MAPPER.createObjectNode()
                .put("name", name)
                .put("subject", subject)
                .put("version", version);
    }

    static ObjectNode json(String field, String value) {
        return MAPPER.createObjectNode().put(field, value);
    }
}

package io.varve.registry.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import io.varve.registry.RegistryException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Request parsing and response writing for one exchange: Confluent's content types and error bodies. */
final class HttpExchangeIo {
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    /** The request content types Confluent's server accepts. */
    private static final List<String> ACCEPTED = List.of(
            "application/vnd.schemaregistry.v1+json",
            "application/vnd.schemaregistry+json",
            "application/json",
            "application/octet-stream");

    static final int MAX_BODY_BYTES = 16 * 1024 * 1024;

    private HttpExchangeIo() {}

    static List<String> segments(HttpExchange exchange) {
        String raw = exchange.getRequestURI().getRawPath();
        List<String> out = new ArrayList<>();
        for (String s : raw.split("/")) {
            if (!s.isEmpty()) {
                out.add(URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    static Map<String, String> query(HttpExchange exchange) {
        Map<String, String> out = new HashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw == null) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = eq < 0 ? pair : pair.substring(0, eq);
            String v = eq < 0 ? "" : pair.substring(eq + 1);
            out.put(URLDecoder.decode(k, StandardCharsets.UTF_8), URLDecoder.decode(v, StandardCharsets.UTF_8));
        }
        return out;
    }

    /** The JSON body; refuses other content types (415), too large (413) or malformed bodies (400 / 422). */
    static JsonNode body(HttpExchange exchange) throws IOException {
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (type != null) {
            String base = type.split(";")[0].trim().toLowerCase(Locale.ROOT);
            if (!base.isEmpty() && !ACCEPTED.contains(base)) {
                throw new RegistryException(415, 415, "HTTP 415 Unsupported Media Type");
            }
        }
        byte[] bytes;
        try (InputStream in = exchange.getRequestBody()) {
            bytes = in.readNBytes(MAX_BODY_BYTES + 1);
        }
        if (bytes.length > MAX_BODY_BYTES) {
            throw new RegistryException(413, 413, "The request body is larger than " + MAX_BODY_BYTES + " bytes");
        }
        try {
            JsonNode node = MAPPER.readTree(bytes);
            if (node == null || !node.isObject()) {
                throw new RegistryException(422, 422, "The request body must be a JSON object");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new RegistryException(400, 400, "Malformed JSON body: " + e.getOriginalMessage());
        }
    }

    static void json(HttpExchange exchange, int status, Object value) throws IOException {
        send(exchange, status, MAPPER.writeValueAsBytes(value));
    }

    /** A schema's own text as the body (GET .../schema), as Confluent serves it. */
    static void raw(HttpExchange exchange, String text) throws IOException {
        send(exchange, 200, text.getBytes(StandardCharsets.UTF_8));
    }

    static void error(HttpExchange exchange, RegistryException e) throws IOException {
        if (e.httpStatus() == 401) {
            exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"varve-schema-registry\"");
        }
        Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("error_code", e.errorCode());
        body.put("message", e.getMessage());
        json(exchange, e.httpStatus(), body);
    }

    /** The writer's answer to a forwarded write, as it gave it. */
    static void passThrough(HttpExchange exchange, int status, String contentType, byte[] bytes) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }

    private static void send(HttpExchange exchange, int status, byte[] bytes) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
        if (exchange.getAttribute(WriteForwarder.OFFSET_ATTRIBUTE) instanceof io.varve.registry.SchemaRegistry r) {
            // A write handled here: how far the log was applied when it was answered (read-your-writes elsewhere).
            exchange.getResponseHeaders().set(WriteForwarder.OFFSET_HEADER, Long.toString(r.appliedOffset()));
        }
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }
}

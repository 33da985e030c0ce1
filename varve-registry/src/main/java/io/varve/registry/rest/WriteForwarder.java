package io.varve.registry.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import io.varve.registry.RegistryException;
import io.varve.registry.SchemaRegistry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a write that this node does not take to the writer's registry listener, as Confluent's followers do, and
 * answers the client with the writer's answer once this node's own copy has replayed the write (read-your-writes:
 * the writer says up to which offset its answer reflects the log). When the writer cannot be reached or answers that
 * it no longer writes (50003), the write is sent once more, to the writer that took over; then 50003.
 *
 * <p>A forwarded request carries {@link #FORWARDED_HEADER}; a node receiving one handles it itself and never sends it
 * on, so a request makes at most one hop whatever the nodes believe about each other.
 */
final class WriteForwarder {
    private static final Logger log = LoggerFactory.getLogger(WriteForwarder.class);
    static final String FORWARDED_HEADER = "X-Varve-Forwarded";
    static final String OFFSET_HEADER = "X-Varve-Registry-Offset";
    /** The exchange attribute naming the registry whose applied offset a locally handled write's answer carries. */
    static final String OFFSET_ATTRIBUTE = "io.varve.registry.appliedOffset";

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(45);
    static final long READ_YOUR_WRITES_WAIT_MS = 15_000;
    private static final List<String> PASSED_HEADERS = List.of("Content-Type", "Accept", "Authorization");

    private final SchemaRegistry registry;
    private final WriteRoute route;
    private final HttpClient client;

    WriteForwarder(SchemaRegistry registry, WriteRoute route, HttpClient client) {
        this.registry = registry;
        this.route = route;
        this.client = client;
    }

    static HttpClient defaultClient(javax.net.ssl.SSLContext ssl) {
        HttpClient.Builder builder =
                HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).followRedirects(HttpClient.Redirect.NEVER);
        if (ssl != null) {
            builder.sslContext(ssl);
        }
        return builder.build();
    }

    /** Whether {@code segments} with {@code method} change the registry (lookups and compatibility tests do not). */
    static boolean isWrite(String method, List<String> segments) {
        String first = segments.isEmpty() ? "" : segments.get(0);
        return switch (first) {
            case "subjects" -> method.equals("DELETE") || (method.equals("POST") && segments.size() >= 3);
            case "config", "mode" -> method.equals("PUT") || method.equals("DELETE");
            default -> false;
        };
    }

    /**
     * Answers {@code exchange} through the writer when this node does not take writes and returns true; returns false
     * when the caller must handle it here (marked so that its answer carries this node's applied offset).
     */
    boolean forwardIfRemote(HttpExchange exchange) throws IOException {
        boolean forwardedToUs = exchange.getRequestHeaders().containsKey(FORWARDED_HEADER);
        Optional<URI> target = forwardedToUs ? Optional.empty() : route.remoteWriter();
        if (target.isEmpty()) {
            exchange.setAttribute(OFFSET_ATTRIBUTE, registry);
            return false;
        }
        byte[] body = readBody(exchange);
        Answer answer = send(exchange, target.get(), body);
        if (answer == null || answer.notWriter()) {
            Optional<URI> next = route.awaitNewWriter(target.get());
            if (next.isEmpty()) {
                exchange.setStreams(new ByteArrayInputStream(body), null);
                exchange.setAttribute(OFFSET_ATTRIBUTE, registry);
                return false;
            }
            log.info("Forwarding a registry write to {} failed; retrying once with {}", target.get(), next.get());
            answer = send(exchange, next.get(), body);
            if (answer == null || answer.notWriter()) {
                throw RegistryException.notWriter("The schema registry's writer changed while the write was forwarded"
                        + " (to " + target.get() + ", then " + next.get() + ")");
            }
        }
        if (answer.status() == 200 && answer.offset() >= 0) {
            if (!registry.awaitApplied(answer.offset(), READ_YOUR_WRITES_WAIT_MS)) {
                log.warn(
                        "This node's registry did not replay offset {} within {} ms; answering the write anyway",
                        answer.offset(),
                        READ_YOUR_WRITES_WAIT_MS);
            }
        }
        HttpExchangeIo.passThrough(exchange, answer.status(), answer.contentType(), answer.body());
        return true;
    }

    private record Answer(int status, String contentType, byte[] body, long offset) {
        boolean notWriter() {
            if (status != 500) {
                return false;
            }
            try {
                JsonNode node = HttpExchangeIo.MAPPER.readTree(body);
                return node != null && node.path("error_code").asInt() == 50003;
            } catch (IOException e) {
                return false;
            }
        }
    }

    /** One attempt; null when the writer could not be reached. */
    private Answer send(HttpExchange exchange, URI writer, byte[] body) {
        URI original = exchange.getRequestURI();
        String pathAndQuery =
                original.getRawPath() + (original.getRawQuery() == null ? "" : "?" + original.getRawQuery());
        URI target = URI.create(stripSlash(writer.toString()) + pathAndQuery);
        HttpRequest.Builder request = HttpRequest.newBuilder(target)
                .timeout(REQUEST_TIMEOUT)
                .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body))
                .header(FORWARDED_HEADER, "true");
        for (String name : PASSED_HEADERS) {
            String value = exchange.getRequestHeaders().getFirst(name);
            if (value != null) {
                request.header(name, value);
            }
        }
        try {
            HttpResponse<byte[]> response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            long offset = response.headers()
                    .firstValue(OFFSET_HEADER)
                    .map(Long::parseLong)
                    .orElse(-1L);
            return new Answer(
                    response.statusCode(),
                    response.headers().firstValue("Content-Type").orElse(HttpExchangeIo.CONTENT_TYPE),
                    response.body(),
                    offset);
        } catch (IOException | NumberFormatException e) {
            log.info("The schema registry's writer at {} could not be reached: {}", writer, e.toString());
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RegistryException.storeError("Interrupted while forwarding to " + writer);
        }
    }

    private static byte[] readBody(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] bytes = in.readNBytes(HttpExchangeIo.MAX_BODY_BYTES + 1);
            if (bytes.length > HttpExchangeIo.MAX_BODY_BYTES) {
                throw new RegistryException(
                        413, 413, "The request body is larger than " + HttpExchangeIo.MAX_BODY_BYTES + " bytes");
            }
            return bytes;
        }
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}

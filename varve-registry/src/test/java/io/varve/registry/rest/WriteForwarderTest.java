package io.varve.registry.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varve.registry.RegistryException;
import io.varve.registry.SchemaRegistry;
import io.varve.registry.rest.RegistryAccess.Operation;
import io.varve.registry.store.SchemaLog;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two registries over one log, as two brokers over one {@code _schemas}: the writer appends, the follower cannot and
 * sees each record only {@link #LAG_MS} after it was appended (its replica's fetch delay).
 */
class WriteForwarderTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String CT = "application/vnd.schemaregistry.v1+json";
    private static final long LAG_MS = 300;
    private static final String USER =
            "{\"type\":\"record\",\"name\":\"User\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"}]}";

    private final SharedLog shared = new SharedLog();
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<RestServer> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(RestServer::close);
    }

    /** The log both nodes replay: appended entries with the time they were appended. */
    private static final class SharedLog {
        private final List<SchemaLog.Entry> entries = new ArrayList<>();
        private final List<Long> appendedNanos = new ArrayList<>();

        synchronized void append(List<SchemaLog.Entry> batch) {
            for (SchemaLog.Entry e : batch) {
                entries.add(e);
                appendedNanos.add(System.nanoTime());
            }
        }

        synchronized long read(long from, long lagMs, SchemaLog.Sink sink) {
            long now = System.nanoTime();
            int i = (int) from;
            while (i < entries.size() && now - appendedNanos.get(i) >= lagMs * 1_000_000L) {
                sink.record(entries.get(i).key(), entries.get(i).value());
                i++;
            }
            return i;
        }
    }

    private SchemaLog writerLog() {
        return new SchemaLog() {
            @Override
            public void append(List<Entry> entries) {
                shared.append(entries);
            }

            @Override
            public long readFrom(long fromOffset, Sink sink) {
                return shared.read(fromOffset, 0, sink);
            }
        };
    }

    private SchemaLog followerLog() {
        return new SchemaLog() {
            @Override
            public void claimWriter() {
                throw RegistryException.notWriter("This node does not take writes");
            }

            @Override
            public void append(List<Entry> entries) {
                throw RegistryException.notWriter("This node does not take writes");
            }

            @Override
            public long readFrom(long fromOffset, Sink sink) {
                return shared.read(fromOffset, LAG_MS, sink);
            }
        };
    }

    private RestServer start(SchemaLog log, WriteRoute route) {
        RestServer server = RestServer.start(
                "http://127.0.0.1:0",
                new SchemaRegistry(log),
                java.util.concurrent.CompletableFuture.completedFuture(null),
                route);
        servers.add(server);
        return server;
    }

    private static URI url(RestServer server) {
        return URI.create("http://127.0.0.1:" + server.port());
    }

    /** A route that names {@code first}, then, after a failure, {@code next} (counting the failures reported). */
    private static WriteRoute route(URI first, URI next, AtomicInteger failures) {
        return new WriteRoute() {
            @Override
            public Optional<URI> remoteWriter() {
                return Optional.of(first);
            }

            @Override
            public Optional<URI> awaitNewWriter(URI failed) {
                failures.incrementAndGet();
                return Optional.of(next);
            }
        };
    }

    private static URI deadUrl() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }
    }

    private HttpResponse<String> call(RestServer server, String method, String path, String body, String header)
            throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(url(server).resolve(path)).header("Content-Type", CT);
        if (header != null) {
            b.header(header, "true");
        }
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String schemaBody(String schema) {
        return MAPPER.createObjectNode().put("schema", schema).toString();
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return MAPPER.readTree(r.body());
    }

    @Test
    void aWriteOnAFollowerIsTakenByTheWriterAndAnsweredOnlyOnceTheFollowersCopyHasIt() throws Exception {
        RestServer writer = start(writerLog(), WriteRoute.LOCAL);
        RestServer follower = start(followerLog(), route(url(writer), url(writer), new AtomicInteger()));

        HttpResponse<String> reg = call(follower, "POST", "/subjects/users-value/versions", schemaBody(USER), null);
        assertThat(reg.statusCode()).as(reg.body()).isEqualTo(200);
        assertThat(json(reg).get("id").asInt()).isEqualTo(1);

        // Read right after the answer, with no wait: the follower's copy lags by LAG_MS, yet it has the write.
        HttpResponse<String> read = call(follower, "GET", "/subjects/users-value/versions/latest", null, null);
        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
        assertThat(json(read).get("id").asInt()).isEqualTo(1);

        HttpResponse<String> config =
                call(follower, "PUT", "/config/users-value", "{\"compatibility\":\"FULL\"}", null);
        assertThat(config.statusCode()).as(config.body()).isEqualTo(200);
        assertThat(json(call(follower, "GET", "/config/users-value", null, null))
                        .get("compatibilityLevel")
                        .asText())
                .isEqualTo("FULL");
    }

    @Test
    void aWriterThatCannotBeReachedIsReplacedByTheNextOneOnce() throws Exception {
        RestServer writer = start(writerLog(), WriteRoute.LOCAL);
        AtomicInteger failures = new AtomicInteger();
        RestServer follower = start(followerLog(), route(deadUrl(), url(writer), failures));

        HttpResponse<String> reg = call(follower, "POST", "/subjects/users-value/versions", schemaBody(USER), null);

        assertThat(reg.statusCode()).as(reg.body()).isEqualTo(200);
        assertThat(json(reg).get("id").asInt()).isEqualTo(1);
        assertThat(failures).hasValue(1);
    }

    @Test
    void aWriteWhoseWriterFailsTwiceGets50003AndLeavesNothing() throws Exception {
        RestServer other = start(followerLog(), WriteRoute.LOCAL);
        AtomicInteger failures = new AtomicInteger();
        // The first is unreachable; the second answers 50003 itself (it no longer writes).
        RestServer follower = start(followerLog(), route(deadUrl(), url(other), failures));

        HttpResponse<String> reg = call(follower, "POST", "/subjects/users-value/versions", schemaBody(USER), null);

        assertThat(reg.statusCode()).isEqualTo(500);
        assertThat(json(reg).get("error_code").asInt()).isEqualTo(50003);
        assertThat(failures).hasValue(1);
        assertThat(shared.read(0, 0, (k, v) -> {})).isZero();
    }

    @Test
    void aForwardedWriteIsHandledWhereItArrivesAndNeverSentOn() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        WriteRoute counting = new WriteRoute() {
            @Override
            public Optional<URI> remoteWriter() {
                asked.incrementAndGet();
                return Optional.empty();
            }

            @Override
            public Optional<URI> awaitNewWriter(URI failed) {
                asked.incrementAndGet();
                return Optional.empty();
            }
        };
        RestServer follower = start(followerLog(), counting);

        HttpResponse<String> reg = call(
                follower, "POST", "/subjects/users-value/versions", schemaBody(USER), WriteForwarder.FORWARDED_HEADER);

        assertThat(json(reg).get("error_code").asInt()).isEqualTo(50003);
        assertThat(asked).hasValue(0);
    }

    @Test
    void aForwardedWriteCarriesTheClientsCredentialsToTheWriterWhichChecksThemAgain() throws Exception {
        RegistryAccess basicOnly = new RegistryAccess() {
            @Override
            public String authenticate(com.sun.net.httpserver.HttpExchange exchange) {
                String auth = exchange.getRequestHeaders().getFirst("Authorization");
                if (!"Basic YWxpY2U6c2VjcmV0".equals(auth)) {
                    throw new RegistryException(401, 40101, "Unauthorized");
                }
                return "User:alice";
            }

            @Override
            public boolean allowed(String principal, String host, Operation operation, String subject) {
                return operation != Operation.WRITE || subject.equals("alice-value");
            }
        };
        RestServer writer = RestServer.start(
                "http://127.0.0.1:0",
                new SchemaRegistry(writerLog()),
                java.util.concurrent.CompletableFuture.completedFuture(null),
                WriteRoute.LOCAL,
                new RestServer.Security(null, RestServer.ClientAuth.NONE, null, basicOnly));
        servers.add(writer);
        // The follower lets everything through: only the writer's own check can refuse.
        RestServer follower = start(followerLog(), route(url(writer), url(writer), new AtomicInteger()));

        HttpRequest.Builder allowed = HttpRequest.newBuilder(url(follower).resolve("/subjects/alice-value/versions"))
                .header("Content-Type", CT)
                .header("Authorization", "Basic YWxpY2U6c2VjcmV0")
                .POST(HttpRequest.BodyPublishers.ofString(schemaBody(USER)));
        HttpResponse<String> ok = http.send(allowed.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);

        HttpRequest.Builder denied = HttpRequest.newBuilder(url(follower).resolve("/subjects/bob-value/versions"))
                .header("Content-Type", CT)
                .header("Authorization", "Basic YWxpY2U6c2VjcmV0")
                .POST(HttpRequest.BodyPublishers.ofString(schemaBody(USER)));
        HttpResponse<String> forbidden = http.send(denied.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(forbidden.statusCode()).isEqualTo(403);
        assertThat(json(forbidden).get("error_code").asInt()).isEqualTo(40301);

        HttpResponse<String> anonymous =
                call(follower, "POST", "/subjects/alice-value/versions", schemaBody(USER), null);
        assertThat(anonymous.statusCode()).isEqualTo(401);
    }

    @Test
    void lookupsAndCompatibilityTestsAreNotWrites() {
        assertThat(WriteForwarder.isWrite("POST", List.of("subjects", "s"))).isFalse();
        assertThat(WriteForwarder.isWrite("POST", List.of("compatibility", "subjects", "s", "versions")))
                .isFalse();
        assertThat(WriteForwarder.isWrite("GET", List.of("config"))).isFalse();
        assertThat(WriteForwarder.isWrite("POST", List.of("subjects", "s", "versions")))
                .isTrue();
        assertThat(WriteForwarder.isWrite("DELETE", List.of("subjects", "s"))).isTrue();
        assertThat(WriteForwarder.isWrite("PUT", List.of("mode"))).isTrue();
    }
}

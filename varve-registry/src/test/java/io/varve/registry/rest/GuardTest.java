package io.varve.registry.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import io.varve.registry.RegistryException;
import io.varve.registry.SchemaRegistry;
import io.varve.registry.store.InMemorySchemaLog;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The REST layer's checks with an access policy of the test's own: the user named in the {@code X-User} header may
 * describe the subjects in {@link #VISIBLE} and do everything as {@code admin}; nobody else gets in.
 */
class GuardTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String CT = "application/vnd.schemaregistry.v1+json";
    private static final Set<String> VISIBLE = Set.of("shared-value");
    private static final String SCHEMA =
            "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"string\"}]}";

    private RestServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    private static final RegistryAccess POLICY = new RegistryAccess() {
        @Override
        public String authenticate(HttpExchange exchange) {
            String user = exchange.getRequestHeaders().getFirst("X-User");
            if (user == null) {
                throw new RegistryException(401, 40101, "Unauthorized");
            }
            return "User:" + user;
        }

        @Override
        public boolean allowed(String principal, String host, Operation operation, String subject) {
            return principal.equals("User:admin") || (operation == Operation.DESCRIBE && VISIBLE.contains(subject));
        }
    };

    @BeforeEach
    void start() {
        server = RestServer.start(
                "http://127.0.0.1:0",
                new SchemaRegistry(new InMemorySchemaLog()),
                CompletableFuture.completedFuture(null),
                WriteRoute.LOCAL,
                new RestServer.Security(null, RestServer.ClientAuth.NONE, null, POLICY));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private JsonNode call(String user, String method, String path, String body, int expectedStatus) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .header("Content-Type", CT)
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (user != null) {
            b.header("X-User", user);
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(expectedStatus);
        return MAPPER.readTree(r.body());
    }

    private static String body() {
        return MAPPER.createObjectNode().put("schema", SCHEMA).toString();
    }

    @Test
    void listsShowOnlyTheSubjectsThePrincipalMayDescribe() throws Exception {
        call("admin", "POST", "/subjects/shared-value/versions", body(), 200);
        call("admin", "POST", "/subjects/hidden-value/versions", body(), 200);

        assertThat(call("bob", "GET", "/subjects", null, 200).toString()).isEqualTo("[\"shared-value\"]");
        assertThat(call("bob", "GET", "/schemas/ids/1/subjects", null, 200).toString())
                .isEqualTo("[\"shared-value\"]");
        assertThat(call("admin", "GET", "/subjects", null, 200)).hasSize(2);
    }

    @Test
    void aSchemaByIdNeedsOneOfItsSubjectsToBeDescribable() throws Exception {
        call("admin", "POST", "/subjects/hidden-value/versions", body(), 200);

        JsonNode refused = call("bob", "GET", "/schemas/ids/1", null, 403);
        assertThat(refused.get("error_code").asInt()).isEqualTo(40301);
        assertThat(call("admin", "GET", "/schemas/ids/1", null, 200).has("schema"))
                .isTrue();
    }

    @Test
    void eachOperationIsCheckedAgainstItsSubjectOrTheGlobalSettings() throws Exception {
        assertThat(call("bob", "POST", "/subjects/shared-value/versions", body(), 403)
                        .get("message")
                        .asText())
                .isEqualTo("User User:bob is denied operation Write on Subject: shared-value");
        call("bob", "PUT", "/config/shared-value", "{\"compatibility\":\"NONE\"}", 403);
        assertThat(call("bob", "PUT", "/config", "{\"compatibility\":\"NONE\"}", 403)
                        .get("message")
                        .asText())
                .contains("Alter configs", "the global settings");
        call("bob", "DELETE", "/subjects/shared-value", null, 403);
        call(null, "GET", "/subjects", null, 401);
    }
}

package io.varve.registry.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varve.registry.SchemaRegistry;
import io.varve.registry.store.InMemorySchemaLog;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RestServerTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String CT = "application/vnd.schemaregistry.v1+json";
    private static final String USER =
            "{\"type\":\"record\",\"name\":\"User\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"}]}";

    private RestServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        SchemaRegistry registry = new SchemaRegistry(new InMemorySchemaLog());
        server = RestServer.start("http://127.0.0.1:0", registry);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpResponse<String> call(String method, String path, String body, String contentType) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode json(HttpResponse<String> r) throws Exception {
        return MAPPER.readTree(r.body());
    }

    private static String schemaBody(String schema) throws Exception {
        return MAPPER.createObjectNode().put("schema", schema).toString();
    }

    @Test
    void registersAndServesASchemaInConfluentsShapesAndContentType() throws Exception {
        HttpResponse<String> reg = call("POST", "/subjects/users-value/versions", schemaBody(USER), CT);
        assertThat(reg.statusCode()).isEqualTo(200);
        assertThat(reg.headers().firstValue("Content-Type")).contains(CT);
        assertThat(json(reg).get("id").asInt()).isEqualTo(1);
        JsonNode latest = json(call("GET", "/subjects/users-value/versions/latest", null, null));
        assertThat(latest.get("subject").asText()).isEqualTo("users-value");
        assertThat(latest.get("version").asInt()).isEqualTo(1);
        assertThat(latest.get("schema").asText()).isEqualTo(USER);
        assertThat(latest.has("schemaType")).isFalse();
        assertThat(call("GET", "/subjects/users-value/versions/1/schema", null, null)
                        .body())
                .isEqualTo(USER);
        assertThat(json(call("GET", "/schemas/ids/1?fetchMaxId=true", null, null))
                        .get("maxId")
                        .asInt())
                .isEqualTo(1);
        assertThat(json(call("GET", "/schemas/ids/1/versions", null, null)).toString())
                .isEqualTo("[{\"subject\":\"users-value\",\"version\":1}]");
        assertThat(json(call("GET", "/schemas/types", null, null)).toString())
                .isEqualTo("[\"JSON\",\"PROTOBUF\",\"AVRO\"]");
        JsonNode found = json(call("POST", "/subjects/users-value", schemaBody(USER), "application/json"));
        assertThat(found.get("version").asInt()).isEqualTo(1);
        assertThat(json(call("GET", "/subjects", null, null)).toString()).isEqualTo("[\"users-value\"]");
    }

    @Test
    void badInputGetsConfluentsStatusAndErrorCode() throws Exception {
        assertError(call("GET", "/subjects/nope/versions", null, null), 404, 40401);
        call("POST", "/subjects/s/versions", schemaBody(USER), CT);
        assertError(call("GET", "/subjects/s/versions/7", null, null), 404, 40402);
        assertError(call("GET", "/subjects/s/versions/zero", null, null), 422, 42202);
        assertError(call("GET", "/schemas/ids/99", null, null), 404, 40403);
        assertError(call("POST", "/subjects/s/versions", schemaBody("{\"type\":\"bogus\"}"), CT), 422, 42201);
        assertError(call("POST", "/subjects/s/versions", "{not json", CT), 400, 400);
        assertError(call("POST", "/subjects/s/versions", schemaBody(USER), "text/plain"), 415, 415);
        assertError(call("PUT", "/config", "{\"compatibility\":\"SIDEWAYS\"}", CT), 422, 42203);
        assertError(call("PUT", "/mode", "{\"mode\":\"SIDEWAYS\"}", CT), 422, 42204);
        String incompatible = USER.replace("\"string\"", "\"int\"");
        HttpResponse<String> r = call("POST", "/subjects/s/versions", schemaBody(incompatible), CT);
        assertError(r, 409, 409);
        assertThat(json(r).get("message").asText()).contains("incompatible").contains("oldSchemaVersion");
        JsonNode verdict = json(
                call("POST", "/compatibility/subjects/s/versions/latest?verbose=true", schemaBody(incompatible), CT));
        assertThat(verdict.get("is_compatible").asBoolean()).isFalse();
        assertThat(verdict.get("messages")).isNotEmpty();
    }

    @Test
    void configAndModeEndpointsRoundTripAndDefaultToGlobalOnRequest() throws Exception {
        assertThat(json(call("PUT", "/config", "{\"compatibility\":\"FULL\"}", CT))
                        .get("compatibility")
                        .asText())
                .isEqualTo("FULL");
        assertThat(json(call("GET", "/config", null, null))
                        .get("compatibilityLevel")
                        .asText())
                .isEqualTo("FULL");
        assertError(call("GET", "/config/s", null, null), 404, 40408);
        assertThat(json(call("GET", "/config/s?defaultToGlobal=true", null, null))
                        .get("compatibilityLevel")
                        .asText())
                .isEqualTo("FULL");
        assertThat(json(call("PUT", "/mode/s", "{\"mode\":\"READONLY\"}", CT))
                        .get("mode")
                        .asText())
                .isEqualTo("READONLY");
        assertError(call("POST", "/subjects/s/versions", schemaBody(USER), CT), 422, 42205);
        assertThat(json(call("DELETE", "/mode/s", null, null)).get("mode").asText())
                .isEqualTo("READONLY");
        assertThat(call("POST", "/subjects/s/versions", schemaBody(USER), CT).statusCode())
                .isEqualTo(200);
    }

    @Test
    void aListenerItCannotUseIsRefusedInOneSentenceNamingTheKey() {
        assertThatThrownBy(() -> RestServer.start("https://127.0.0.1:0", null))
                .hasMessageStartingWith("varve.schema.registry.listeners");
        assertThatThrownBy(() -> RestServer.start("http://127.0.0.1:" + server.port(), null))
                .hasMessageStartingWith("varve.schema.registry.listeners: cannot listen on");
    }

    private void assertError(HttpResponse<String> r, int status, int code) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(json(r).get("error_code").asInt()).as(r.body()).isEqualTo(code);
    }
}

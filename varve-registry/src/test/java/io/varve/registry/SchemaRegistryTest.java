package io.varve.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.registry.format.SchemaReference;
import io.varve.registry.store.InMemorySchemaLog;
import org.junit.jupiter.api.Test;

class SchemaRegistryTest {
    private static final String USER =
            "{\"type\":\"record\",\"name\":\"User\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"}]}";
    private static final String USER_INT =
            "{\"type\":\"record\",\"name\":\"User\",\"fields\":[{\"name\":\"name\",\"type\":\"int\"}]}";

    private final InMemorySchemaLog log = new InMemorySchemaLog();
    private final SchemaRegistry registry = new SchemaRegistry(log);

    private static int code(Throwable t) {
        return ((RegistryException) t).errorCode();
    }

    @Test
    void theSameSchemaKeepsItsIdAcrossSubjectsAndRegisteringItTwiceAddsNoVersion() {
        int a = registry.register("a", RegisterRequest.of(null, USER), false);
        int again = registry.register("a", RegisterRequest.of(null, " " + USER + " "), false);
        int b = registry.register("b", RegisterRequest.of("AVRO", USER), false);
        assertThat(again).isEqualTo(a);
        assertThat(b).isEqualTo(a);
        assertThat(registry.versions("a", false)).containsExactly(1);
    }

    @Test
    void aRefusedRegistrationWritesNothingAndTakesNoId() {
        registry.register("a", RegisterRequest.of(null, USER), false);
        int before = log.size();
        assertThatThrownBy(() -> registry.register("a", RegisterRequest.of(null, USER_INT), false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(409));
        assertThatThrownBy(() -> registry.register("a", RegisterRequest.of(null, "{\"type\":\"nope\"}"), false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(42201));
        assertThat(log.size()).isEqualTo(before);
        registry.setConfig("a", "NONE");
        assertThat(registry.register("a", RegisterRequest.of(null, USER_INT), false))
                .isEqualTo(2);
    }

    @Test
    void idsAreNeverReusedAfterAPermanentDeleteEvenOnReplay() {
        registry.register("a", RegisterRequest.of(null, USER), false);
        registry.deleteSubject("a", false);
        registry.deleteSubject("a", true);
        SchemaRegistry replayed = new SchemaRegistry(log);
        replayed.catchUp();
        assertThat(replayed.register("b", RegisterRequest.of(null, USER_INT), false))
                .isEqualTo(2);
    }

    @Test
    void softDeletedVersionsAreHiddenUnlessAskedForAndMustPrecedeAPermanentDelete() {
        registry.register("a", RegisterRequest.of(null, USER), false);
        assertThatThrownBy(() -> registry.deleteVersion("a", "1", true))
                .satisfies(e -> assertThat(code(e)).isEqualTo(40407));
        assertThat(registry.deleteVersion("a", "1", false)).isEqualTo(1);
        assertThatThrownBy(() -> registry.deleteVersion("a", "1", false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(40406));
        assertThatThrownBy(() -> registry.versions("a", false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(40401));
        assertThat(registry.versions("a", true)).containsExactly(1);
        assertThat(registry.subjects(true, null)).containsExactly("a");
        assertThat(registry.subjects(false, null)).isEmpty();
        assertThat(registry.deleteVersion("a", "1", true)).isEqualTo(1);
        assertThat(registry.subjects(true, null)).isEmpty();
    }

    @Test
    void referencesMustExistAndAReferencedVersionCannotBeDeleted() {
        String address =
                "{\"type\":\"record\",\"name\":\"Address\",\"fields\":[{\"name\":\"city\",\"type\":\"string\"}]}";
        String person =
                "{\"type\":\"record\",\"name\":\"Person\",\"fields\":[{\"name\":\"home\",\"type\":\"Address\"}]}";
        SchemaReference ref = new SchemaReference("Address", "address", 1);
        assertThatThrownBy(() -> registry.register("person", RegisterRequest.of(null, person, ref), false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(42201));
        registry.register("address", RegisterRequest.of(null, address), false);
        int id = registry.register("person", RegisterRequest.of(null, person, ref), false);
        assertThat(registry.schema(id).schema()).doesNotContain("city");
        assertThat(registry.referencedBy("address", 1)).containsExactly(id);
        assertThatThrownBy(() -> registry.deleteSubject("address", false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(42206));
    }

    @Test
    void readOnlyRefusesWritesAndImportKeepsTheGivenIdsAndRefusesATakenOne() {
        registry.setMode("", "READONLY", false);
        assertThatThrownBy(() -> registry.register("a", RegisterRequest.of(null, USER), false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(42205));
        registry.setMode("", "IMPORT", false);
        int id = registry.register("a", new RegisterRequest(USER, null, null, 100, 5), false);
        assertThat(id).isEqualTo(100);
        assertThat(registry.versions("a", false)).containsExactly(5);
        assertThatThrownBy(() -> registry.register("b", new RegisterRequest(USER_INT, null, null, 100, null), false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(42207));
        registry.setMode("", "READWRITE", false);
        assertThat(registry.register("c", RegisterRequest.of(null, USER_INT), false))
                .isEqualTo(101);
        assertThatThrownBy(() -> registry.setMode("", "IMPORT", false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(42205));
        assertThatThrownBy(() -> registry.setMode("", "WRITEONLY", false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(42204));
    }

    @Test
    void subjectLevelsFallBackToTheGlobalOneOnlyWhenAskedTo() {
        assertThat(registry.config("", false)).hasToString("BACKWARD");
        registry.setConfig("", "full");
        assertThatThrownBy(() -> registry.config("a", false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(40408));
        assertThat(registry.config("a", true)).hasToString("FULL");
        assertThatThrownBy(() -> registry.setConfig("a", "SIDEWAYS"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(42203));
    }

    @Test
    void jsonSchemaAndProtobufWithImportsRegisterThroughReferences() {
        String other = "syntax = \"proto3\";\npackage demo;\nmessage Address {\n  string city = 1;\n}\n";
        String main = "syntax = \"proto3\";\npackage demo;\nimport \"address.proto\";\nmessage Person {\n"
                + "  string name = 1;\n  Address home = 2;\n}\n";
        registry.register("address", RegisterRequest.of("PROTOBUF", other), false);
        assertThatThrownBy(() -> registry.register("person", RegisterRequest.of("PROTOBUF", main), false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(42201));
        int id = registry.register(
                "person",
                RegisterRequest.of("PROTOBUF", main, new SchemaReference("address.proto", "address", 1)),
                false);
        assertThat(registry.parsed(id).recordName()).contains("demo.Person");
        String json = "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"a.json\"}}}";
        registry.register("a-json", RegisterRequest.of("JSON", "{\"type\":\"string\"}"), false);
        int jsonId = registry.register(
                "j", RegisterRequest.of("JSON", json, new SchemaReference("a.json", "a-json", 1)), false);
        assertThat(registry.parsed(jsonId).invalidPayload("{\"a\":1}".getBytes(), 0, 7))
                .isNotNull();
        assertThat(registry.parsed(jsonId).invalidPayload("{\"a\":\"x\"}".getBytes(), 0, 9))
                .isNull();
        assertThatThrownBy(() -> registry.register("j2", RegisterRequest.of("JSON", "{\"type\":12}"), false))
                .satisfies(e -> assertThat(code(e)).isEqualTo(42201));
    }

    @Test
    void anotherFormatUnderTheSameSubjectIsIncompatibleUnlessTheLevelIsNone() {
        registry.register("mixed", RegisterRequest.of(null, USER), false);
        assertThatThrownBy(() -> registry.register("mixed", RegisterRequest.of("JSON", "{\"type\":\"string\"}"), false))
                .satisfies(e -> assertThat(e).hasMessageContaining("different schema type"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(409));
        registry.setConfig("mixed", "NONE");
        assertThat(registry.register("mixed", RegisterRequest.of("JSON", "{\"type\":\"string\"}"), false))
                .isEqualTo(2);
    }

    @Test
    void normalizeMakesFormattingAndKeyOrderIrrelevant() {
        int json = registry.register("j", RegisterRequest.of("JSON", "{\"type\":\"object\",\"title\":\"T\"}"), true);
        assertThat(registry.register(
                        "j", RegisterRequest.of("JSON", "{ \"title\": \"T\", \"type\": \"object\" }"), true))
                .isEqualTo(json);
        String proto = "syntax = \"proto3\";\npackage demo;\nmessage  User {  string name = 1; }";
        int p = registry.register("p", RegisterRequest.of("PROTOBUF", proto), true);
        assertThat(registry.schema(p).schema())
                .startsWith("syntax = \"proto3\";")
                .contains("message User {");
        String reformatted = "syntax = \"proto3\";\n\npackage demo;\n\nmessage User {\n  string name = 1;\n}\n";
        assertThat(registry.lookUp("p", RegisterRequest.of("PROTOBUF", reformatted), true, false)
                        .id())
                .isEqualTo(p);
        assertThat(registry.versions("p", false)).containsExactly(1);
    }

    @Test
    void aJsonSchemaRefThatIsNotAReferenceIsRefusedWithoutBeingFetched() throws Exception {
        java.util.concurrent.atomic.AtomicInteger fetches = new java.util.concurrent.atomic.AtomicInteger();
        com.sun.net.httpserver.HttpServer server =
                com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            fetches.incrementAndGet();
            byte[] body = "{\"type\":\"string\"}".getBytes();
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            String remote = "{\"properties\":{\"a\":{\"$ref\":\"http://127.0.0.1:"
                    + server.getAddress().getPort() + "/x.json\"}}}";
            assertThatThrownBy(() -> registry.register("j3", RegisterRequest.of("JSON", remote), false))
                    .satisfies(e -> assertThat(code(e)).isEqualTo(42201));
            assertThat(fetches).hasValue(0);
        } finally {
            server.stop(0);
        }
    }
}

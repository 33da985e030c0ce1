package io.varve.registry.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.registry.RegisterRequest;
import io.varve.registry.SchemaRegistry;
import io.varve.registry.store.InMemorySchemaLog;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The compatibility table from Confluent's documented examples: for each format and level, a change that must be
 * accepted and one that must be refused, registered through the registry as a client would.
 */
class CompatibilityTableTest {
    private static final String AVRO_V1 =
            "{\"type\":\"record\",\"name\":\"User\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"}]}";
    /** Adds a field with a default: backward and forward compatible. */
    private static final String AVRO_OPTIONAL_ADDED = "{\"type\":\"record\",\"name\":\"User\",\"fields\":["
            + "{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"age\",\"type\":\"int\",\"default\":0}]}";
    /** Adds a field without a default: the new reader cannot fill it from old data (not backward). */
    private static final String AVRO_REQUIRED_ADDED = "{\"type\":\"record\",\"name\":\"User\",\"fields\":["
            + "{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"age\",\"type\":\"int\"}]}";
    /** Removes a field without a default: the old reader cannot fill it from new data (not forward). */
    private static final String AVRO_EMPTY = "{\"type\":\"record\",\"name\":\"User\",\"fields\":[]}";

    private static final String AVRO_TYPE_CHANGED =
            "{\"type\":\"record\",\"name\":\"User\",\"fields\":[{\"name\":\"name\",\"type\":\"int\"}]}";

    private static final String JSON_OPEN = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}";
    private static final String JSON_OPEN_ADDED =
            "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}," + "\"age\":{\"type\":\"integer\"}}}";
    private static final String JSON_CLOSED =
            "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}," + "\"additionalProperties\":false}";
    private static final String JSON_CLOSED_ADDED =
            "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
                    + "\"age\":{\"type\":\"integer\"}},\"additionalProperties\":false}";
    private static final String JSON_NARROWED =
            "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"," + "\"maxLength\":3}}}";

    /** A partially open content model: extra properties must be integers. */
    private static final String JSON_PARTIAL = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
            + "\"additionalProperties\":{\"type\":\"integer\"}}";

    private static final String JSON_PARTIAL_ADDED_INT = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
            + "\"string\"},\"age\":{\"type\":\"number\"}},\"additionalProperties\":{\"type\":\"integer\"}}";
    private static final String JSON_PARTIAL_ADDED_STRING = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
            + "\"string\"},\"nick\":{\"type\":\"string\"}},\"additionalProperties\":{\"type\":\"integer\"}}";
    private static final String JSON_ENUM = "{\"enum\":[\"red\",\"green\"]}";
    private static final String JSON_ENUM_WIDER = "{\"enum\":[\"red\",\"green\",\"blue\"]}";
    private static final String JSON_REQUIRED = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
            + "\"required\":[\"name\"],\"additionalProperties\":false}";

    private static final String PROTO_V1 =
            "syntax = \"proto3\";\npackage demo;\nmessage User {\n  string name = 1;\n}\n";
    private static final String PROTO_ADDED =
            "syntax = \"proto3\";\npackage demo;\nmessage User {\n  string name = 1;\n  int32 age = 2;\n}\n";
    private static final String PROTO_WIRE_SAME =
            "syntax = \"proto3\";\npackage demo;\nmessage User {\n  bytes name = 1;\n}\n";
    private static final String PROTO_KIND_CHANGED =
            "syntax = \"proto3\";\npackage demo;\nmessage User {\n  int64 name = 1;\n}\n";
    private static final String PROTO2_V1 =
            "syntax = \"proto2\";\npackage demo;\nmessage User {\n" + "  optional string name = 1;\n}\n";
    private static final String PROTO2_REQUIRED_ADDED = "syntax = \"proto2\";\npackage demo;\nmessage User {\n"
            + "  optional string name = 1;\n  required int32 age = 2;\n}\n";
    private static final String PROTO_TWO_FIELDS =
            "syntax = \"proto3\";\npackage demo;\nmessage User {\n  string name = 1;\n  string nick = 2;\n}\n";
    private static final String PROTO_INTO_ONEOF = "syntax = \"proto3\";\npackage demo;\nmessage User {\n"
            + "  oneof id {\n    string name = 1;\n    string nick = 2;\n  }\n}\n";
    private static final String PROTO_PACKAGE_CHANGED =
            "syntax = \"proto3\";\npackage other;\nmessage User {\n  string name = 1;\n}\n";
    private static final String PROTO_MESSAGE_REMOVED =
            "syntax = \"proto3\";\npackage demo;\nmessage Other {\n" + "  string name = 1;\n}\n";

    static Stream<Arguments> table() {
        return Stream.of(
                Arguments.of("AVRO", "BACKWARD", AVRO_V1, AVRO_OPTIONAL_ADDED, true),
                Arguments.of("AVRO", "BACKWARD", AVRO_V1, AVRO_REQUIRED_ADDED, false),
                Arguments.of("AVRO", "BACKWARD", AVRO_V1, AVRO_EMPTY, true),
                Arguments.of("AVRO", "FORWARD", AVRO_V1, AVRO_REQUIRED_ADDED, true),
                Arguments.of("AVRO", "FORWARD", AVRO_V1, AVRO_EMPTY, false),
                Arguments.of("AVRO", "FULL", AVRO_V1, AVRO_OPTIONAL_ADDED, true),
                Arguments.of("AVRO", "FULL", AVRO_V1, AVRO_REQUIRED_ADDED, false),
                Arguments.of("AVRO", "NONE", AVRO_V1, AVRO_TYPE_CHANGED, true),
                Arguments.of("AVRO", "BACKWARD", AVRO_V1, AVRO_TYPE_CHANGED, false),
                Arguments.of("JSON", "BACKWARD", JSON_OPEN, JSON_OPEN_ADDED, false),
                Arguments.of("JSON", "BACKWARD", JSON_CLOSED, JSON_CLOSED_ADDED, true),
                Arguments.of("JSON", "FORWARD", JSON_OPEN, JSON_OPEN_ADDED, true),
                Arguments.of("JSON", "FORWARD", JSON_CLOSED, JSON_CLOSED_ADDED, false),
                Arguments.of("JSON", "BACKWARD", JSON_OPEN, JSON_NARROWED, false),
                Arguments.of("JSON", "FORWARD", JSON_OPEN, JSON_NARROWED, true),
                Arguments.of("JSON", "FULL", JSON_OPEN, JSON_NARROWED, false),
                Arguments.of("JSON", "BACKWARD", JSON_PARTIAL, JSON_PARTIAL_ADDED_INT, true),
                Arguments.of("JSON", "BACKWARD", JSON_PARTIAL, JSON_PARTIAL_ADDED_STRING, false),
                Arguments.of("JSON", "BACKWARD", JSON_ENUM, JSON_ENUM_WIDER, true),
                Arguments.of("JSON", "FORWARD", JSON_ENUM, JSON_ENUM_WIDER, false),
                Arguments.of("JSON", "BACKWARD", JSON_CLOSED, JSON_REQUIRED, false),
                Arguments.of("JSON", "FORWARD", JSON_CLOSED, JSON_REQUIRED, true),
                Arguments.of("PROTOBUF", "BACKWARD", PROTO2_V1, PROTO2_REQUIRED_ADDED, false),
                Arguments.of("PROTOBUF", "BACKWARD", PROTO_TWO_FIELDS, PROTO_INTO_ONEOF, false),
                Arguments.of("PROTOBUF", "BACKWARD", PROTO_V1, PROTO_PACKAGE_CHANGED, false),
                Arguments.of("PROTOBUF", "BACKWARD", PROTO_V1, PROTO_ADDED, true),
                Arguments.of("PROTOBUF", "FULL", PROTO_V1, PROTO_ADDED, true),
                Arguments.of("PROTOBUF", "FULL", PROTO_V1, PROTO_WIRE_SAME, true),
                Arguments.of("PROTOBUF", "BACKWARD", PROTO_V1, PROTO_KIND_CHANGED, false),
                Arguments.of("PROTOBUF", "BACKWARD", PROTO_V1, PROTO_MESSAGE_REMOVED, false),
                Arguments.of("PROTOBUF", "NONE", PROTO_V1, PROTO_KIND_CHANGED, true));
    }

    @ParameterizedTest(name = "{0} {1}: {3} after {2} accepted={4}")
    @MethodSource("table")
    void eachLevelAcceptsWhatItMustAndRefusesWhatItMust(
            String type, String level, String previous, String next, boolean accepted) {
        SchemaRegistry registry = new SchemaRegistry(new InMemorySchemaLog());
        registry.setConfig("s", level);
        registry.register("s", RegisterRequest.of(type, previous), false);
        List<String> problems = registry.testCompatibility("s", "latest", RegisterRequest.of(type, next));
        assertThat(problems.isEmpty()).as("%s", problems).isEqualTo(accepted);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transitive")
    void transitiveLevelsCheckEveryLiveVersionAndOthersOnlyTheLatest(String level, boolean accepted) {
        SchemaRegistry registry = new SchemaRegistry(new InMemorySchemaLog());
        registry.setConfig("s", "NONE");
        registry.register("s", RegisterRequest.of("AVRO", AVRO_V1), false);
        registry.register("s", RegisterRequest.of("AVRO", AVRO_TYPE_CHANGED), false);
        registry.setConfig("s", level);
        // Compatible with the latest (a string field reading from an int field is a promotion Avro does not
        // allow the other way round, so use a schema equal to the latest), not with version 1.
        List<String> problems = registry.testCompatibility("s", null, RegisterRequest.of("AVRO", AVRO_TYPE_CHANGED));
        assertThat(problems.isEmpty()).as("%s", problems).isEqualTo(accepted);
    }

    static Stream<Arguments> transitive() {
        return Stream.of(
                Arguments.of("BACKWARD", true),
                Arguments.of("BACKWARD_TRANSITIVE", false),
                Arguments.of("FORWARD", true),
                Arguments.of("FORWARD_TRANSITIVE", false),
                Arguments.of("FULL", true),
                Arguments.of("FULL_TRANSITIVE", false));
    }
}

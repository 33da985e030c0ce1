package io.varve.it.registry;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static io.varve.it.registry.RegistryHttp.json;
import static io.varve.it.registry.RegistryHttp.reference;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.it.TestBroker;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry on a running broker, through its REST API: the compatibility table, deletes and modes, its state
 * across a broker restart, and broker-side validation refusing what it must with a real Kafka producer.
 */
class SchemaRegistryIT {
    private static final String USER =
            "{\"type\":\"record\",\"name\":\"User\",\"namespace\":\"demo\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"}]}";
    private static final String USER_WITH_AGE =
            "{\"type\":\"record\",\"name\":\"User\",\"namespace\":\"demo\",\"fields\":["
                    + "{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"age\",\"type\":\"int\",\"default\":0}]}";
    private static final String USER_AGE_REQUIRED = "{\"type\":\"record\",\"name\":\"User\",\"namespace\":\"demo\","
            + "\"fields\":[{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"age\",\"type\":\"int\"}]}";

    @TempDir
    static Path dataDir;

    static TestBroker broker;
    static RegistryHttp http;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(dataDir, Map.of("varve.schema.registry.listeners", "http://127.0.0.1:0"));
        http = new RegistryHttp(broker.broker().schemaRegistryPort());
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    @Test
    void theRegistryKeepsSchemasConfigsModesAndDeletesAcrossABrokerRestart() throws Exception {
        int avro = http.registerOk("restart-avro", null, USER);
        int address = http.registerOk(
                "restart-address",
                "PROTOBUF",
                "syntax = \"proto3\";\npackage demo;\nmessage Address { string city = 1; }\n");
        int person = http.registerOk(
                "restart-person",
                "PROTOBUF",
                "syntax = \"proto3\";\npackage demo;\nimport \"address.proto\";\n"
                        + "message Person { string name = 1; Address home = 2; }\n",
                reference("address.proto", "restart-address", 1));
        int json = http.registerOk("restart-json", "JSON", "{\"type\":\"object\",\"additionalProperties\":false}");
        assertThat(http.call("PUT", "/config/restart-avro", json("compatibility", "FULL"))
                        .status())
                .isEqualTo(200);
        assertThat(http.call("PUT", "/mode/restart-json", json("mode", "READONLY"))
                        .status())
                .isEqualTo(200);
        assertThat(http.call("DELETE", "/subjects/restart-person/versions/1", null)
                        .status())
                .isEqualTo(200);

        broker.restart();
        http = new RegistryHttp(broker.broker().schemaRegistryPort());

        assertThat(http.get("/schemas/ids/" + avro).body().get("schema").asText())
                .isEqualTo(USER);
        assertThat(http.get("/subjects/restart-address/versions/1")
                        .body()
                        .get("id")
                        .asInt())
                .isEqualTo(address);
        assertThat(http.get("/subjects/restart-person/versions").errorCode()).isEqualTo(40401);
        assertThat(http.get("/subjects/restart-person/versions?deleted=true")
                        .body()
                        .toString())
                .isEqualTo("[1]");
        assertThat(http.get("/schemas/ids/" + person)
                        .body()
                        .get("references")
                        .get(0)
                        .get("name")
                        .asText())
                .isEqualTo("address.proto");
        assertThat(http.get("/config/restart-avro")
                        .body()
                        .get("compatibilityLevel")
                        .asText())
                .isEqualTo("FULL");
        assertThat(http.get("/mode/restart-json").body().get("mode").asText()).isEqualTo("READONLY");
        assertThat(http.register("restart-json", "JSON", "{\"type\":\"object\"}")
                        .errorCode())
                .isEqualTo(42205);
        int next =
                http.registerOk("restart-new", null, "{\"type\":\"record\",\"name\":\"AfterRestart\",\"fields\":[]}");
        assertThat(next).isGreaterThan(Math.max(Math.max(avro, address), Math.max(person, json)));
    }

    @Test
    void compatibilityLevelsAcceptAndRefuseAsConfluentDocumentsThem() throws Exception {
        String[][] table = {
            // level, then the schema to register after USER, then whether it is accepted
            {"BACKWARD", USER_WITH_AGE, "true"},
            {"BACKWARD", USER_AGE_REQUIRED, "false"},
            {"FORWARD", USER_AGE_REQUIRED, "true"},
            {"FULL", USER_WITH_AGE, "true"},
            {"FULL", USER_AGE_REQUIRED, "false"},
            {"NONE", "\"int\"", "true"},
        };
        int row = 0;
        for (String[] t : table) {
            String subject = "compat-" + row++;
            http.registerOk(subject, null, USER);
            assertThat(http.call("PUT", "/config/" + subject, json("compatibility", t[0]))
                            .status())
                    .isEqualTo(200);
            RegistryHttp.Reply verdict = http.call(
                    "POST",
                    "/compatibility/subjects/" + subject + "/versions/latest?verbose=true",
                    RegistryHttp.schemaBody(null, t[1]));
            assertThat(verdict.body().get("is_compatible").asBoolean())
                    .as("%s %s", t[0], t[1])
                    .isEqualTo(Boolean.parseBoolean(t[2]));
            RegistryHttp.Reply reg = http.register(subject, null, t[1]);
            assertThat(reg.status())
                    .as("%s %s: %s", t[0], t[1], reg.body())
                    .isEqualTo(Boolean.parseBoolean(t[2]) ? 200 : 409);
        }
    }

    @Test
    void softThenPermanentDeletesAndImportModeBehaveAsConfluents() throws Exception {
        int id = http.registerOk("deletes", null, "{\"type\":\"record\",\"name\":\"DeletedSoon\",\"fields\":[]}");
        assertThat(http.call("DELETE", "/subjects/deletes?permanent=true", null).errorCode())
                .isEqualTo(40405);
        assertThat(http.call("DELETE", "/subjects/deletes", null).body().toString())
                .isEqualTo("[1]");
        assertThat(http.call("DELETE", "/subjects/deletes", null).errorCode()).isEqualTo(40404);
        assertThat(http.get("/subjects").body().toString()).doesNotContain("\"deletes\"");
        assertThat(http.get("/subjects?deleted=true").body().toString()).contains("\"deletes\"");
        assertThat(http.call("DELETE", "/subjects/deletes?permanent=true", null).status())
                .isEqualTo(200);
        assertThat(http.get("/subjects?deleted=true").body().toString()).doesNotContain("\"deletes\"");

        assertThat(http.call("PUT", "/mode/import-here", json("mode", "IMPORT")).status())
                .isEqualTo(200);
        var body = RegistryHttp.schemaBody(null, USER_WITH_AGE).put("id", 5000).put("version", 3);
        assertThat(http.call("POST", "/subjects/import-here/versions", body)
                        .body()
                        .get("id")
                        .asInt())
                .isEqualTo(5000);
        var taken = RegistryHttp.schemaBody(null, "\"long\"").put("id", 5000);
        assertThat(http.call("POST", "/subjects/import-here/versions", taken).errorCode())
                .isEqualTo(42207);
        assertThat(http.get("/subjects/import-here/versions/3").body().get("id").asInt())
                .isEqualTo(5000);
        assertThat(http.get("/schemas/ids/" + id).status())
                .as("the deleted schema's id")
                .isEqualTo(404);
    }

    @Test
    void brokerSideValidationRefusesUnregisteredIdsAndBadHeadersAndDeepModeBadPayloads() throws Exception {
        String topic = uniqueTopic("validated");
        String deepTopic = uniqueTopic("validated-deep");
        try (Admin admin = broker.admin()) {
            createTopic(admin, topic, 1, Map.of("confluent.value.schema.validation", "true"));
            createTopic(
                    admin,
                    deepTopic,
                    1,
                    Map.of("confluent.value.schema.validation", "true", "varve.schema.validation.deep", "true"));
        }
        int id = http.registerOk(topic + "-value", null, USER);
        http.registerOk(deepTopic + "-value", null, USER);
        int otherId = http.registerOk("unrelated-value", null, "\"string\"");
        byte[] valid = confluentAvro(id, USER, "ada");
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of("retries", 0))) {
            assertThat(producer.send(new ProducerRecord<>(topic, valid)).get().offset())
                    .isZero();
            assertThat(producer.send(new ProducerRecord<>(topic, (byte[]) null))
                            .get()
                            .offset())
                    .isEqualTo(1);
            assertRefused(producer, topic, "plain text".getBytes(), "magic byte 0");
            assertRefused(producer, topic, header(otherId, new byte[] {2, 'x'}), "not registered under subject");
            assertRefused(producer, topic, header(99999, new byte[] {2, 'x'}), "does not hold");
            assertThat(producer.send(new ProducerRecord<>(topic, header(id, new byte[] {7})))
                            .get()
                            .offset())
                    .as("shallow mode checks the header only")
                    .isEqualTo(2);
            assertThat(producer.send(new ProducerRecord<>(deepTopic, valid))
                            .get()
                            .offset())
                    .isZero();
            assertRefused(producer, deepTopic, header(id, new byte[] {7}), "not Avro data");
        }
    }

    @Test
    void aRegistryListenerThatIsNotAnHttpUrlIsRefusedAtStartUpInOneSentenceNamingTheKey(@TempDir Path otherDir) {
        assertThatThrownBy(() ->
                        TestBroker.start(otherDir, Map.of("varve.schema.registry.listeners", "ftp://127.0.0.1:0")))
                .hasMessageStartingWith("varve.schema.registry.listeners: ")
                .hasMessageContaining("must be an http:// or https:// URL");
    }

    @Test
    void anHttpsListenerWithoutAKafkaListenerToTakeItsKeystoreFromIsRefusedAtStartUp(@TempDir Path otherDir) {
        assertThatThrownBy(() ->
                        TestBroker.start(otherDir, Map.of("varve.schema.registry.listeners", "https://127.0.0.1:0")))
                .hasMessageStartingWith(
                        "varve.schema.registry.listeners is https: set" + " varve.schema.registry.security.listener");
    }

    private static void assertRefused(KafkaProducer<byte[], byte[]> producer, String topic, byte[] value, String why) {
        assertThatThrownBy(() -> producer.send(new ProducerRecord<>(topic, value))
                        .get(TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining(why);
    }

    private static byte[] header(int id, byte[] payload) {
        return ByteBuffer.allocate(5 + payload.length)
                .put((byte) 0)
                .putInt(id)
                .put(payload)
                .array();
    }

    private static byte[] confluentAvro(int id, String schemaText, String name) throws Exception {
        Schema schema = new Schema.Parser().parse(schemaText);
        GenericRecord record = new GenericData.Record(schema);
        record.put("name", name);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
        encoder.flush();
        return header(id, out.toByteArray());
    }
}

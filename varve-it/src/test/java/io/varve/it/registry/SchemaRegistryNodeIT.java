package io.varve.it.registry;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.TestBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients nobody here wrote against the registry and the broker: KafkaJS and {@code @kafkajs/confluent-schema-registry}
 * under node (installed by {@code npm ci} from the committed lock file into {@code target/}) register Avro, JSON
 * Schema and Protobuf schemas with references, produce serialised records to topics with broker-side validation on,
 * consume and decode them; a record without the registry's header is refused.
 */
class SchemaRegistryNodeIT {
    private static final Path SOURCES = Path.of("src/test/node/schema-registry");
    private static final Path WORK = Path.of("target/registry-node");

    @TempDir
    static Path dataDir;

    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        installClients();
        broker = TestBroker.start(dataDir, Map.of("varve.schema.registry.listeners", "http://127.0.0.1:0"));
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void kafkajsAndTheConfluentRegistryClientRoundTripAvroJsonSchemaAndProtobufWithReferences() throws Exception {
        String avro = uniqueTopic("node-avro");
        String json = uniqueTopic("node-json");
        String proto = uniqueTopic("node-proto");
        try (Admin admin = broker.admin()) {
            Map<String, String> deep =
                    Map.of("confluent.value.schema.validation", "true", "varve.schema.validation.deep", "true");
            createTopic(admin, avro, 1, deep);
            createTopic(admin, json, 1, deep);
            // The client frames Protobuf without Confluent's message indexes, so deep validation would refuse it.
            createTopic(admin, proto, 1, Map.of("confluent.value.schema.validation", "true"));
        }
        Map<String, String> env = Map.of(
                "BOOTSTRAP",
                broker.bootstrap(),
                "REGISTRY_URL",
                "http://127.0.0.1:" + broker.broker().schemaRegistryPort(),
                "TOPIC_AVRO",
                avro,
                "TOPIC_JSON",
                json,
                "TOPIC_PROTOBUF",
                proto,
                "SUBJECT_PREFIX",
                uniqueTopic("node"));
        String out = run(List.of("node", "roundtrip.js"), env, 180);
        System.out.print(out);
        assertThat(out)
                .contains("OK registered")
                .contains("OK AVRO round trip of 2 records")
                .contains("OK JSON round trip of 2 records")
                .contains("OK PROTOBUF round trip of 2 records")
                .contains("OK refused")
                .contains("OK all");
    }

    /** Copies the client's package files to target/ and installs them there once per lock file. */
    private static void installClients() throws Exception {
        Files.createDirectories(WORK);
        for (String f : List.of("package.json", "package-lock.json", "roundtrip.js")) {
            Files.copy(SOURCES.resolve(f), WORK.resolve(f), StandardCopyOption.REPLACE_EXISTING);
        }
        Path stamp = WORK.resolve("node_modules/.varve-lock");
        byte[] lock = Files.readAllBytes(WORK.resolve("package-lock.json"));
        if (Files.exists(stamp) && Arrays.equals(Files.readAllBytes(stamp), lock)) {
            return;
        }
        run(List.of("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"), Map.of(), 300);
        Files.write(stamp, lock);
    }

    private static String run(List<String> command, Map<String, String> env, int timeoutSeconds)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(WORK.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] output;
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(command + " did not finish in " + timeoutSeconds + " s");
            }
        } finally {
            output = p.getInputStream().readAllBytes();
        }
        String text = new String(output, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("%s printed:%n%s", command, text).isZero();
        return text;
    }
}

package io.varve.it;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.readAll;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.Kcat.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kcat (librdkafka) lists, produces to and consumes from Varve, and interoperates with kafka-clients.
 * Records are compared in any order: order within a partition is proved by ProduceConsumeIT and NetworkIT.
 */
class KcatIT {
    @TempDir
    static Path workDir;

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker();

    @BeforeAll
    static void checkPrerequisites() {
        Kcat.assumeInstalled();
    }

    @Test
    void metadataListingShowsTheBrokerAndACreatedTopic() throws Exception {
        String topic = uniqueTopic("listed");
        createTopic(shared.admin(), topic, 3);
        Result result = kcat(null, "-L");
        assertThat(result.exitCode()).as(result.stderr()).isZero();
        assertThat(result.stdout())
                .contains("broker 1 at 127.0.0.1:" + shared.broker().port())
                .contains("topic \"" + topic + "\" with 3 partitions");
    }

    @Test
    void linesProducedWithKcatAreConsumedWithKcatWithTheirKeys() throws Exception {
        String topic = uniqueTopic("kcat-keys");
        createTopic(shared.admin(), topic, 1);
        List<String> lines =
                IntStream.range(0, 50).mapToObj(i -> "key" + i + ":value " + i).toList();
        Result produced = kcat(String.join("\n", lines) + "\n", "-P", "-t", topic, "-p", "0", "-K:");
        assertThat(produced.exitCode()).as(produced.stderr()).isZero();

        Result consumed = consumeWithKcat(topic, "%k:%s\\n");
        assertThat(consumed.lines()).containsExactlyInAnyOrderElementsOf(lines);
    }

    @Test
    void linesProducedWithKcatWithoutKeysAreConsumedWithKcat() throws Exception {
        String topic = uniqueTopic("kcat-plain");
        createTopic(shared.admin(), topic, 1);
        List<String> lines = IntStream.range(0, 20).mapToObj(i -> "line " + i).toList();
        Result produced = kcat(String.join("\n", lines) + "\n", "-P", "-t", topic);
        assertThat(produced.exitCode()).as(produced.stderr()).isZero();

        Result consumed = kcat(null, "-C", "-t", topic, "-o", "beginning", "-e", "-q");
        assertThat(consumed.exitCode()).as(consumed.stderr()).isZero();
        assertThat(consumed.lines()).containsExactlyInAnyOrderElementsOf(lines);
    }

    @Test
    void recordsProducedWithKafkaClientsAreConsumedWithKcat() throws Exception {
        String topic = uniqueTopic("java-to-kcat");
        createTopic(shared.admin(), topic, 1);
        List<String> expected = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = shared.broker().producer(Map.of())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                acks.add(producer.send(
                        new ProducerRecord<>(topic, 0, ("k" + i).getBytes(UTF_8), ("v" + i).getBytes(UTF_8))));
                expected.add("k" + i + "=v" + i);
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        }
        Result consumed = consumeWithKcat(topic, "%k=%s\\n");
        assertThat(consumed.lines()).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void recordsProducedWithKcatAreConsumedWithKafkaClients() throws Exception {
        String topic = uniqueTopic("kcat-to-java");
        createTopic(shared.admin(), topic, 1);
        List<String> lines =
                IntStream.range(0, 30).mapToObj(i -> "k" + i + ":v" + i).toList();
        Result produced = kcat(String.join("\n", lines) + "\n", "-P", "-t", topic, "-p", "0", "-K:");
        assertThat(produced.exitCode()).as(produced.stderr()).isZero();

        List<ConsumerRecord<byte[], byte[]>> read = readAll(shared.broker(), topic, 1);
        assertThat(read)
                .extracting(r -> new String(r.key(), UTF_8) + ":" + new String(r.value(), UTF_8))
                .containsExactlyInAnyOrderElementsOf(lines);
    }

    @ParameterizedTest(name = "compression.codec={0}")
    @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
    void batchesCompressedByKcatAreReadBackByKcatAndKafkaClients(String codec) throws Exception {
        String topic = uniqueTopic("kcat-" + codec);
        createTopic(shared.admin(), topic, 1);
        List<String> lines = IntStream.range(0, 200)
                .mapToObj(i -> "record " + i + " " + "compressible text ".repeat(1 + i % 10))
                .toList();
        Result produced = kcat(
                String.join("\n", lines) + "\n",
                "-P",
                "-t",
                topic,
                "-p",
                "0",
                "-X",
                "compression.codec=" + codec,
                "-X",
                "linger.ms=50");
        assertThat(produced.exitCode()).as(produced.stderr()).isZero();

        Result consumed = kcat(null, "-C", "-t", topic, "-o", "beginning", "-e", "-q");
        assertThat(consumed.exitCode()).as(consumed.stderr()).isZero();
        assertThat(consumed.lines()).containsExactlyInAnyOrderElementsOf(lines);
        assertThat(readAll(shared.broker(), topic, 1))
                .extracting(r -> new String(r.value(), UTF_8))
                .containsExactlyInAnyOrderElementsOf(lines);
    }

    private Result consumeWithKcat(String topic, String format) throws Exception {
        Result consumed = kcat(null, "-C", "-t", topic, "-o", "beginning", "-e", "-q", "-f", format);
        assertThat(consumed.exitCode()).as(consumed.stderr()).isZero();
        return consumed;
    }

    /** Runs kcat against the shared broker with {@code stdin} (or none), waiting at most 30 s. */
    private Result kcat(String stdin, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("-b", shared.broker().bootstrap()));
        all.addAll(List.of(args));
        return Kcat.run(workDir, stdin, all);
    }
}

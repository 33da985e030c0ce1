package io.varve.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The produce-throughput cost of broker-side schema validation, Varve alone (Apache Kafka has none): one broker, three
 * topics of 6 partitions that differ only in validation (none; {@code confluent.value.schema.validation=true}, which
 * checks the wire-format header and the subject; and that plus {@code varve.schema.validation.deep=true}, which decodes
 * each value as Avro of its schema). One producer ({@code acks=all}, {@code linger.ms=5}) sends the same pre-encoded
 * Confluent-framed Avro records of about 1 KiB to each in turn, the order reversed every round; the figure is the
 * median records/s per topic and its cost against the unvalidated one. Run by {@code bench/schema-validation}.
 */
public final class SchemaValidationBench {
    private static final String SCHEMA = "{\"type\":\"record\",\"name\":\"Event\",\"namespace\":\"bench\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"payload\",\"type\":\"string\"}]}";
    private static final int PARTITIONS = 6;
    private static final int DISTINCT_VALUES = 64;

    private SchemaValidationBench() {
    }

    public static void main(String[] args) throws Exception {
        Path workDir = Path.of(arg(args, "--work", "bench/work/schema-validation"));
        String varveClasspath = arg(args, "--varve-classpath", null);
        int records = Integer.parseInt(arg(args, "--records", "500000"));
        int rounds = Integer.parseInt(arg(args, "--rounds", "3"));
        int recordBytes = Integer.parseInt(arg(args, "--record-size", "1024"));
        BrokerLauncher.deleteTree(workDir);
        Files.createDirectories(workDir);
        int port = BrokerLauncher.freePort();
        int registryPort = BrokerLauncher.freePort();
        Map<String, Map<String, String>> topics = new LinkedHashMap<>();
        topics.put("none", Map.of());
        topics.put("shallow", Map.of("confluent.value.schema.validation", "true"));
        topics.put("deep", Map.of("confluent.value.schema.validation", "true", "varve.schema.validation.deep", "true"));

        Map<String, List<Double>> recordsPerSecond = new LinkedHashMap<>();
        topics.keySet().forEach(t -> recordsPerSecond.put(t, new ArrayList<>()));
        try (RunningBroker broker = start(varveClasspath, workDir, port, registryPort)) {
            broker.awaitReady(Duration.ofSeconds(60));
            String registry = "http://" + RunningBroker.HOST + ":" + registryPort;
            int id = -1;
            for (String topic : topics.keySet()) {
                id = register(registry, topic + "-value");
            }
            try (Admin admin = admin(broker.bootstrap())) {
                List<NewTopic> creates = new ArrayList<>();
                topics.forEach((name, configs) -> creates.add(new NewTopic(name, PARTITIONS, (short) 1).configs(configs)));
                admin.createTopics(creates).all().get();
            }
            byte[][] values = values(id, recordBytes);
            // Untimed: warms the JIT of both sides on every path, and proves each topic takes the records.
            for (String topic : topics.keySet()) {
                produce(broker.bootstrap(), topic, Math.min(records, 50_000), values);
            }
            for (int round = 0; round < rounds; round++) {
                List<String> order = new ArrayList<>(topics.keySet());
                if (round % 2 == 1) {
                    java.util.Collections.reverse(order);
                }
                for (String topic : order) {
                    double rate = produce(broker.bootstrap(), topic, records, values);
                    recordsPerSecond.get(topic).add(rate);
                    System.out.printf(Locale.ROOT, "round %d %-8s %,.0f records/s%n", round + 1, topic, rate);
                }
            }
        }
        String report = report(records, rounds, recordBytes, recordsPerSecond);
        System.out.println(report);
        Files.writeString(workDir.resolve("schema-validation.md"), report);
    }

    private static RunningBroker start(String classpath, Path workDir, int port, int registryPort) throws IOException {
        List<String> command = new ArrayList<>(List.of(BrokerLauncher.javaBinary(), "-Xms1g", "-Xmx1g", "-XX:+UseG1GC",
                "-XX:MaxGCPauseMillis=20", "-cp", classpath, "io.varve.cli.Varve", "server"));
        Path dataDir = workDir.resolve("data");
        Map<String, String> settings = Map.ofEntries(
                Map.entry("node.id", "1"),
                Map.entry("listeners", "PLAINTEXT://" + RunningBroker.HOST + ":" + port),
                Map.entry("log.dirs", dataDir.toString()),
                Map.entry("varve.http.listeners", ""),
                Map.entry("varve.schema.registry.listeners", "http://" + RunningBroker.HOST + ":" + registryPort));
        settings.forEach((k, v) -> {
            command.add("--override");
            command.add(k + "=" + v);
        });
        Path log = workDir.resolve("logs").resolve("broker.log");
        return new RunningBroker(BrokerKind.VARVE, ChildProcesses.start(command, workDir, log), port, dataDir, log,
                System.nanoTime());
    }

    /** Registers the schema under {@code subject} (retrying while the registry loads) and returns its id. */
    private static int register(String registry, String subject) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String body = "{\"schema\":" + quote(SCHEMA) + "}";
        HttpRequest request = HttpRequest.newBuilder(URI.create(registry + "/subjects/" + subject + "/versions"))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(30))
                .build();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    String text = r.body().replaceAll("[^0-9]", "");
                    return Integer.parseInt(text);
                }
                last = r.statusCode() + " " + r.body();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("registering " + subject + " failed: " + last);
    }

    private static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /**
     * {@link #DISTINCT_VALUES} Confluent-framed values (magic byte 0, the id, then the Avro binary of an
     * {@code Event}: a zig-zag varint long and a length-prefixed string) of about {@code recordBytes} each.
     */
    private static byte[][] values(int id, int recordBytes) {
        byte[][] out = new byte[DISTINCT_VALUES][];
        for (int i = 0; i < out.length; i++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(recordBytes + 16);
            bytes.write(0);
            bytes.write(id >>> 24);
            bytes.write(id >>> 16);
            bytes.write(id >>> 8);
            bytes.write(id);
            zigZag(bytes, i);
            byte[] payload = new byte[Math.max(1, recordBytes - 16)];
            Arrays.fill(payload, (byte) ('a' + i % 26));
            zigZag(bytes, payload.length);
            bytes.writeBytes(new String(payload, StandardCharsets.US_ASCII).getBytes(StandardCharsets.UTF_8));
            out[i] = bytes.toByteArray();
        }
        return out;
    }

    private static void zigZag(ByteArrayOutputStream out, long value) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(p);
    }

    /** Sends {@code records} records as fast as the producer goes; records/s from the first send to the last ack. */
    private static double produce(String bootstrap, String topic, int records, byte[][] values) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        java.util.concurrent.atomic.AtomicReference<Exception> failure = new java.util.concurrent.atomic.AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.partitionsFor(topic);
            long start = System.nanoTime();
            for (int i = 0; i < records && failure.get() == null; i++) {
                producer.send(new ProducerRecord<>(topic, null, values[i % values.length]), (m, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
            long elapsed = System.nanoTime() - start;
            if (failure.get() != null) {
                throw new IllegalStateException("producing to " + topic + " failed", failure.get());
            }
            return records / (elapsed / 1e9);
        }
    }

    private static String report(int records, int rounds, int recordBytes, Map<String, List<Double>> rates) {
        double base = median(rates.get("none"));
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "### Broker-side schema validation (%s, load %s)%n%n",
                java.time.LocalDateTime.now().withNano(0), MachineInfo.loadAverage()));
        out.append(String.format(Locale.ROOT,
                "One Varve broker, 3 topics × %d partitions, one producer (acks=all, linger.ms=5), %,d records of %d B"
                        + " per run, %d rounds, medians.%n%n", PARTITIONS, records, recordBytes, rounds));
        out.append("| validation | records/s | MiB/s | cost vs none |\n|---|---|---|---|\n");
        for (Map.Entry<String, List<Double>> e : rates.entrySet()) {
            double m = median(e.getValue());
            out.append(String.format(Locale.ROOT, "| %s | %,.0f | %.1f | %s |%n", e.getKey(), m,
                    m * recordBytes / (1024.0 * 1024.0),
                    e.getKey().equals("none") ? "—" : String.format(Locale.ROOT, "%.1f %%", 100.0 * (1 - m / base))));
        }
        return out.toString();
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static String arg(String[] args, String name, String defaultValue) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        if (defaultValue == null) {
            throw new IllegalArgumentException(name + " is required");
        }
        return defaultValue;
    }
}

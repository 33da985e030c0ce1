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
 * validation modes that differ only in their topic's configs (none; {@code confluent.value.schema.validation=true},
 * which checks the wire-format header and the subject; and that plus {@code varve.schema.validation.deep=true}, which
 * decodes each value as Avro of its schema). One producer ({@code acks=all}, {@code linger.ms=5}) sends the same
 * pre-encoded Confluent-framed Avro records of about 1 KiB.
 *
 * <p>Made steady, because single runs of one mode ranged 131k–363k records/s in its first version (which let three
 * topics grow for the whole run): every run writes to a fresh topic of its own, deleted right after it, and starts
 * after {@code sync}, so each run begins with the same (empty) writeback backlog and the page cache does not fill over
 * the rounds; untimed warm-up runs of every mode go first; each round runs every mode once, the order rotated by round
 * so each mode takes each position; each run reads the broker's CPU time ({@code /proc}) around its timed phase. The
 * report gives per mode the median records/s, MiB/s and broker CPU s per GiB produced, the spread of records/s, and
 * the cost against no validation from each round's own pair (median over rounds), plus the broker's peak RSS. Run by
 * {@code bench/schema-validation}.
 */
public final class SchemaValidationBench {
    private static final String SCHEMA = "{\"type\":\"record\",\"name\":\"Event\",\"namespace\":\"bench\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"payload\",\"type\":\"string\"}]}";
    private static final int PARTITIONS = 6;
    private static final int DISTINCT_VALUES = 64;
    private static final double GIB = 1024.0 * 1024.0 * 1024.0;
    private static final List<String> MODES = List.of("none", "shallow", "deep");
    private static final Map<String, Map<String, String>> MODE_CONFIGS = Map.of(
            "none", Map.of(),
            "shallow", Map.of("confluent.value.schema.validation", "true"),
            "deep", Map.of("confluent.value.schema.validation", "true", "varve.schema.validation.deep", "true"));

    private SchemaValidationBench() {
    }

    /** One timed run: records/s from the first send to the last ack, and the broker's CPU per GiB sent. */
    record Run(double recordsPerSecond, double cpuSecondsPerGib, double validationShare) {
    }

    public static void main(String[] args) throws Exception {
        Path workDir = Path.of(arg(args, "--work", "bench/work/schema-validation"));
        String varveClasspath = arg(args, "--varve-classpath", null);
        int records = Integer.parseInt(arg(args, "--records", "1000000"));
        int warmUpRecords = Integer.parseInt(arg(args, "--warmup-records", "200000"));
        int rounds = Integer.parseInt(arg(args, "--rounds", "5"));
        int recordBytes = Integer.parseInt(arg(args, "--record-size", "1024"));
        BrokerLauncher.deleteTree(workDir);
        Files.createDirectories(workDir);
        int port = BrokerLauncher.freePort();
        int registryPort = BrokerLauncher.freePort();
        int httpPort = BrokerLauncher.freePort();
        String loadAtStart = MachineInfo.loadAverage();

        Map<String, List<Run>> runs = new LinkedHashMap<>();
        MODES.forEach(m -> runs.put(m, new ArrayList<>()));
        long peakRssBytes;
        try (RunningBroker broker = start(varveClasspath, workDir, port, registryPort, httpPort)) {
            broker.awaitReady(Duration.ofSeconds(60));
            String registry = "http://" + RunningBroker.HOST + ":" + registryPort;
            int id = register(registry, "bench-warm-up-value");
            byte[][] values = values(id, recordBytes);
            try (Admin admin = admin(broker.bootstrap())) {
                int topicNumber = 0;
                // Untimed: warms the JIT of both sides on every path, and proves each mode takes the records.
                for (String mode : MODES) {
                    run(broker, admin, registry, httpPort, mode, "warm-" + mode, warmUpRecords, values);
                }
                for (int round = 0; round < rounds; round++) {
                    for (int k = 0; k < MODES.size(); k++) {
                        String mode = MODES.get((k + round) % MODES.size());
                        Run r = run(broker, admin, registry, httpPort, mode, mode + "-" + (++topicNumber), records, values);
                        runs.get(mode).add(r);
                        System.out.printf(Locale.ROOT, "round %d %-8s %,.0f records/s, %.2f CPU s/GiB%n", round + 1,
                                mode, r.recordsPerSecond(), r.cpuSecondsPerGib());
                    }
                }
            }
            peakRssBytes = broker.peakRssBytes();
        }
        String report = report(records, warmUpRecords, rounds, recordBytes, runs, peakRssBytes, loadAtStart);
        System.out.println(report);
        Files.writeString(workDir.resolve("schema-validation.md"), report);
    }

    /**
     * One run on a fresh topic {@code name} of {@code mode}: its subject registered, {@code sync} so the previous
     * runs' writeback is done, the timed produce, then the topic deleted so the next run starts from the same state.
     */
    private static Run run(RunningBroker broker, Admin admin, String registry, int httpPort, String mode, String name,
            int records, byte[][] values) throws Exception {
        String topic = "validation-" + name;
        register(registry, topic + "-value"); // the same schema: the same id as the values carry
        admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1).configs(MODE_CONFIGS.get(mode))))
                .all().get();
        sync();
        double cpuBefore = broker.cpuSeconds();
        double rate = produce(broker.bootstrap(), topic, records, values);
        double cpu = broker.cpuSeconds() - cpuBefore;
        // what the produce path says it spent validating this topic's records (0 for a topic that does not validate)
        double validationSeconds = validationSeconds(httpPort, topic);
        admin.deleteTopics(List.of(topic)).all().get();
        double gib = (double) records * values[0].length / GIB;
        return new Run(rate, cpu / gib, validationSeconds / cpu);
    }

    /** {@code varve_schema_validation_seconds_total} of {@code topic} from the broker's /metrics, 0 when absent. */
    private static double validationSeconds(int httpPort, String topic) throws IOException, InterruptedException {
        double seconds = io.varve.bench.scenario.MetricsScraper.value(
                httpPort, "varve_schema_validation_seconds_total{topic=\"" + topic + "\"}");
        return Double.isNaN(seconds) ? 0 : seconds;
    }

    /** Flushes every dirty page to disk (outside the timed phase), so each run starts with no writeback backlog. */
    private static void sync() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("sync").inheritIO().start();
        if (p.waitFor() != 0) {
            throw new IOException("sync exited with " + p.exitValue());
        }
    }

    private static RunningBroker start(String classpath, Path workDir, int port, int registryPort, int httpPort)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(BrokerLauncher.javaBinary(), "-Xms1g", "-Xmx1g", "-XX:+UseG1GC",
                "-XX:MaxGCPauseMillis=20", "-cp", classpath, "io.varve.cli.Varve", "server"));
        Path dataDir = workDir.resolve("data");
        Map<String, String> settings = Map.ofEntries(
                Map.entry("node.id", "1"),
                Map.entry("listeners", "PLAINTEXT://" + RunningBroker.HOST + ":" + port),
                Map.entry("log.dirs", dataDir.toString()),
                Map.entry("varve.http.listeners", "http://" + RunningBroker.HOST + ":" + httpPort),
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

    private static String report(int records, int warmUpRecords, int rounds, int recordBytes,
            Map<String, List<Run>> runs, long peakRssBytes, String loadAtStart) {
        List<Run> none = runs.get("none");
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "### Broker-side schema validation (%s)%n%n",
                java.time.LocalDateTime.now().withNano(0)));
        out.append(String.format(Locale.ROOT, "> Load average at start: %s; at end: %s on %d cores.%n%n", loadAtStart,
                MachineInfo.loadAverage(), Runtime.getRuntime().availableProcessors()));
        out.append(String.format(Locale.ROOT,
                "One Varve broker, one producer (acks=all, linger.ms=5), records of %d B; each run a fresh topic of %d"
                        + " partitions (deleted after it, `sync` before it); %,d untimed records per mode first, then"
                        + " %d rounds of %,d records per mode, the order rotated by round. Medians over rounds; costs"
                        + " from each round's own pair. Broker peak RSS (VmHWM) over the whole run: %.0f MiB.%n%n",
                recordBytes, PARTITIONS, warmUpRecords, rounds, records, peakRssBytes / (1024.0 * 1024.0)));
        out.append("| validation | records/s | MiB/s | records/s min–max | broker CPU s/GiB | throughput lost vs none"
                + " | CPU per GiB added vs none | broker CPU spent validating (measured in the produce path) |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
            List<Run> mode = e.getValue();
            List<Double> rates = mode.stream().map(Run::recordsPerSecond).toList();
            double rate = median(rates);
            String lost = "—";
            String added = "—";
            if (!e.getKey().equals("none")) {
                List<Double> lostPerRound = new ArrayList<>();
                List<Double> addedPerRound = new ArrayList<>();
                for (int r = 0; r < mode.size(); r++) {
                    lostPerRound.add(100.0 * (1 - mode.get(r).recordsPerSecond() / none.get(r).recordsPerSecond()));
                    addedPerRound.add(100.0 * (mode.get(r).cpuSecondsPerGib() / none.get(r).cpuSecondsPerGib() - 1));
                }
                lost = String.format(Locale.ROOT, "%.1f %%", median(lostPerRound));
                added = String.format(Locale.ROOT, "%.1f %%", median(addedPerRound));
            }
            String share = e.getKey().equals("none")
                    ? "—"
                    : String.format(Locale.ROOT, "%.2f %%", 100 * median(mode.stream().map(Run::validationShare).toList()));
            out.append(String.format(Locale.ROOT, "| %s | %,.0f | %.1f | %,.0f–%,.0f | %.2f | %s | %s | %s |%n",
                    e.getKey(), rate, rate * recordBytes / (1024.0 * 1024.0),
                    rates.stream().mapToDouble(d -> d).min().orElse(0), rates.stream().mapToDouble(d -> d).max().orElse(0),
                    median(mode.stream().map(Run::cpuSecondsPerGib).toList()), lost, added, share));
        }
        out.append("\n<details><summary>every run</summary>\n\n");
        runs.forEach((mode, list) -> out.append(String.format(Locale.ROOT,
                "- %s: records/s %s; CPU s/GiB %s; share of broker CPU spent validating %s%n", mode,
                list.stream().map(r -> String.format(Locale.ROOT, "%.0f", r.recordsPerSecond())).toList(),
                list.stream().map(r -> String.format(Locale.ROOT, "%.2f", r.cpuSecondsPerGib())).toList(),
                list.stream().map(r -> String.format(Locale.ROOT, "%.2f %%", 100 * r.validationShare())).toList())));
        out.append("\n</details>\n");
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

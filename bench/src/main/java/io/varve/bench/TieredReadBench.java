package io.varve.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Remote (tiered) read figures of Varve alone (Kafka has no remote storage backend out of the box): loads a topic
 * whose segments are all offloaded to the filesystem backend with local retention near zero, restarts the broker
 * (empty chunk and index caches) and evicts the remote objects from the page cache, then measures
 * <ol>
 *   <li>first-byte latency of cold remote fetches: a connected consumer seeks to the start of a segment nobody read
 *       yet and polls; the time until its first record (index download, first chunk, fetch response);</li>
 *   <li>throughput reading the whole remote range from offset 0 with one consumer (chunk cache + read-ahead);</li>
 *   <li>the same read of an identical local topic, as the baseline on this machine.</li>
 * </ol>
 * Run by {@code bench/tiered-reads}; prints a Markdown section for {@code bench/RESULTS.md}.
 */
public final class TieredReadBench {
    private static final String TIERED = "tiered";
    private static final String LOCAL = "local";
    /** Segment size, {@code --segment-bytes} (8 MiB; smaller for a smoke run with few records). */
    private static int segmentBytes = 8 * 1024 * 1024;
    private static final int COLD_SAMPLES = 5;

    /** Broker settings given with {@code --override KEY=VALUE} (e.g. zero copy off, for a before/after pair). */
    private static List<String> overrides = List.of();
    /** With {@code --jfr FILE}: a JFR recording (profile settings) of the broker that serves the reads. */
    private static Path jfrFile;
    /** The brokers' /metrics port (one broker runs at a time). */
    private static final int httpPort = freeHttpPort();

    private TieredReadBench() {
    }

    public static void main(String[] args) throws Exception {
        Path workDir = Path.of(arg(args, "--work", "bench/work/tiered"));
        String varveClasspath = arg(args, "--varve-classpath", null);
        int records = Integer.parseInt(arg(args, "--records", "200000"));
        int recordBytes = Integer.parseInt(arg(args, "--record-size", "1024"));
        int produceRate = Integer.parseInt(arg(args, "--produce-rate", "5000"));
        int produceSeconds = Integer.parseInt(arg(args, "--produce-seconds", "30"));
        overrides = all(args, "--override");
        segmentBytes = Integer.parseInt(arg(args, "--segment-bytes", String.valueOf(segmentBytes)));
        String jfr = arg(args, "--jfr", "");
        jfrFile = jfr.isEmpty() ? null : Path.of(jfr).toAbsolutePath();
        BrokerLauncher.deleteTree(workDir);
        Files.createDirectories(workDir);
        Path dataDir = workDir.resolve("data");
        Path remoteDir = workDir.resolve("remote");
        int port = BrokerLauncher.freePort();

        String report;
        try (RunningBroker loading = start(varveClasspath, workDir, dataDir, remoteDir, port, "load")) {
            loading.awaitReady(Duration.ofSeconds(60));
            try (Admin admin = admin(loading.bootstrap())) {
                admin.createTopics(List.of(
                        new NewTopic(TIERED, 1, (short) 1).configs(Map.of("remote.storage.enable", "true",
                                "local.retention.bytes", "1")),
                        new NewTopic(LOCAL, 1, (short) 1))).all().get();
                produce(loading.bootstrap(), TIERED, records, recordBytes);
                produce(loading.bootstrap(), LOCAL, records, recordBytes);
                awaitOffloaded(admin, new TopicPartition(TIERED, 0), (long) (records * 0.9));
            }
        }
        int evicted = PageCache.dropSegments(remoteDir);
        try (RunningBroker broker = start(varveClasspath, workDir, dataDir, remoteDir, port, "read")) {
            broker.awaitReady(Duration.ofSeconds(60));
            TopicPartition tiered = new TopicPartition(TIERED, 0);
            long localStart;
            long[] segmentStarts;
            try (Admin admin = admin(broker.bootstrap())) {
                localStart = offset(admin, tiered, OffsetSpec.earliestLocal());
            }
            segmentStarts = coldOffsets(localStart, records);
            long[] coldMicros = new long[segmentStarts.length];
            for (int i = 0; i < segmentStarts.length; i++) {
                coldMicros[i] = firstByteMicros(broker.bootstrap(), tiered, segmentStarts[i]);
            }
            // untimed: JIT-compile the broker's fetch path first, so CPU per GiB is not mostly the compiler's
            readAll(broker.bootstrap(), new TopicPartition(LOCAL, 0), records);
            double cpuBefore = broker.cpuSeconds();
            double[] chunksBefore = chunkCounters();
            double[] remote = readAll(broker.bootstrap(), tiered, localStart);
            double cpuRemote = broker.cpuSeconds() - cpuBefore;
            double[] chunksAfter = chunkCounters();
            chunkLookups = chunksAfter[0] - chunksBefore[0];
            chunkMisses = chunksAfter[1] - chunksBefore[1];
            cpuBefore = broker.cpuSeconds();
            double[] local = readAll(broker.bootstrap(), new TopicPartition(LOCAL, 0), records);
            double cpuLocal = broker.cpuSeconds() - cpuBefore;
            remote = withCpuPerGiB(remote, cpuRemote);
            local = withCpuPerGiB(local, cpuLocal);
            TieredCatchUp.Run alone = null;
            TieredCatchUp.Run withCatchUp = null;
            if (produceSeconds > 0) {
                try (Admin admin = admin(broker.bootstrap())) {
                    TieredCatchUp.createLiveTopic(admin);
                }
                alone = TieredCatchUp.run(broker.bootstrap(), produceRate, produceSeconds, recordBytes, null, 0,
                        remoteDir);
                withCatchUp = TieredCatchUp.run(broker.bootstrap(), produceRate, produceSeconds, recordBytes, tiered,
                        localStart, remoteDir);
            }
            report = report(records, recordBytes, localStart, evicted, coldMicros, remote, local)
                    + catchUpReport(produceRate, produceSeconds, alone, withCatchUp);
        }
        System.out.println(report);
        Files.writeString(workDir.resolve("tiered-reads.md"), report);
    }

    private static RunningBroker start(String classpath, Path workDir, Path dataDir, Path remoteDir, int port,
                                       String label) throws IOException {
        List<String> command = new ArrayList<>(List.of(BrokerLauncher.javaBinary(), "-Xms1g", "-Xmx1g", "-XX:+UseG1GC"));
        if (jfrFile != null && label.equals("read")) {
            command.add("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename=" + jfrFile);
        }
        command.addAll(List.of("-cp", classpath, "io.varve.cli.Varve", "server"));
        Map<String, String> settings = Map.ofEntries(
                Map.entry("node.id", "1"),
                Map.entry("listeners", "PLAINTEXT://" + RunningBroker.HOST + ":" + port),
                Map.entry("log.dirs", dataDir.toString()),
                Map.entry("log.segment.bytes", String.valueOf(segmentBytes)),
                Map.entry("log.retention.check.interval.ms", "500"),
                Map.entry("remote.log.manager.task.interval.ms", "500"),
                Map.entry("rsm.config.fs.root.dir", remoteDir.toString()),
                Map.entry("varve.http.listeners", "http://" + RunningBroker.HOST + ":" + httpPort));
        settings.forEach((k, v) -> {
            command.add("--override");
            command.add(k + "=" + v);
        });
        for (String override : overrides) {
            command.add("--override");
            command.add(override);
        }
        Path log = workDir.resolve("logs").resolve(label + "-broker.log");
        return new RunningBroker(BrokerKind.VARVE, ChildProcesses.start(command, workDir, log), port, dataDir, log,
                System.nanoTime(), httpPort);
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(p);
    }

    private static void produce(String bootstrap, String topic, int records, int recordBytes) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "65536");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        byte[] value = new byte[recordBytes];
        Arrays.fill(value, (byte) 'x');
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, value));
            }
            producer.flush();
        }
    }

    private static long offset(Admin admin, TopicPartition tp, OffsetSpec spec)
            throws ExecutionException, InterruptedException {
        return admin.listOffsets(Map.of(tp, spec)).partitionResult(tp).get().offset();
    }

    private static void awaitOffloaded(Admin admin, TopicPartition tp, long minLocalStart) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (offset(admin, tp, OffsetSpec.earliestLocal()) < minLocalStart) {
            if (System.nanoTime() > deadline) {
                throw new IOException("segments were not offloaded within 5 minutes");
            }
            Thread.sleep(200); // polling the broker's progress, not synchronising threads
        }
    }

    /** Offsets spread over the remote range, each in a different segment, none read before. */
    private static long[] coldOffsets(long localStart, int records) {
        long[] offsets = new long[COLD_SAMPLES];
        for (int i = 0; i < COLD_SAMPLES; i++) {
            offsets[i] = localStart * (2L * i + 1) / (2L * COLD_SAMPLES);
        }
        return offsets;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    /** A connected consumer (metadata known) seeks to {@code offset} and polls: microseconds to the first record. */
    private static long firstByteMicros(String bootstrap, TopicPartition tp, long offset) throws IOException {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            consumer.partitionsFor(tp.topic());
            consumer.assign(List.of(tp));
            consumer.seek(tp, offset);
            long start = System.nanoTime();
            long deadline = start + Duration.ofSeconds(60).toNanos();
            while (consumer.poll(Duration.ofMillis(50)).records(tp).isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("no record at offset " + offset + " within 60 s");
                }
            }
            return (System.nanoTime() - start) / 1000;
        }
    }

    private static double chunkLookups;
    private static double chunkMisses;

    private static int freeHttpPort() {
        try {
            return BrokerLauncher.freePort();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * The broker's chunk lookups and misses so far ({@code varve_remote_chunk_cache_*_total}): a miss is a read that
     * found its chunk neither loaded nor read ahead, so it waited for the store or disk itself.
     */
    private static double[] chunkCounters() throws IOException {
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://" + RunningBroker.HOST + ":" + httpPort + "/metrics")).build();
        String body;
        try {
            body = client.send(request, java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted scraping /metrics", e);
        }
        double lookups = 0;
        double misses = 0;
        for (String line : body.split("\n")) {
            if (line.startsWith("varve_remote_chunk_cache_lookups_total")) {
                lookups = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            } else if (line.startsWith("varve_remote_chunk_cache_misses_total")) {
                misses = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return new double[] {lookups, misses};
    }

    /** Appends the broker's CPU-seconds per GiB of values read to a {@link #readAll} result. */
    private static double[] withCpuPerGiB(double[] read, double cpuSeconds) {
        double gib = read[1] * read[2] / 1024;
        return new double[] {read[0], read[1], read[2], cpuSeconds / gib};
    }

    /** Reads {@code [0, endOffset)} with one consumer: {records/s, MiB/s of record values, seconds}. */
    private static double[] readAll(String bootstrap, TopicPartition tp, long endOffset) throws IOException {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            consumer.partitionsFor(tp.topic());
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            long records = 0;
            long bytes = 0;
            long start = System.nanoTime();
            long deadline = start + Duration.ofMinutes(10).toNanos();
            while (records < endOffset) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("read only " + records + " of " + endOffset + " records in 10 minutes");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100)).records(tp)) {
                    if (r.offset() < endOffset) {
                        records++;
                        bytes += r.value().length;
                    }
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return new double[] {records / seconds, bytes / seconds / (1 << 20), seconds};
        }
    }

    private static String report(int records, int recordBytes, long localStart, int evicted, long[] coldMicros,
                                 double[] remote, double[] local) throws IOException {
        long[] sorted = coldMicros.clone();
        Arrays.sort(sorted);
        StringBuilder out = new StringBuilder();
        out.append("### Tiered reads, ").append(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")))
                .append("\n\n");
        out.append("> Load average at the end: ").append(Files.readString(Path.of("/proc/loadavg")).trim())
                .append(" on ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores. **Noisy machine (other builds running): indicative figures only.**\n\n");
        out.append("Varve only (Kafka ships no remote storage backend to compare with). `bench/tiered-reads --records ")
                .append(records).append(" --record-size ").append(recordBytes).append("`: one partition, ")
                .append(segmentBytes >> 20).append(" MiB segments, filesystem backend on the same disk, "
                        + "`local.retention.bytes=1`; offsets below ").append(localStart)
                .append(" are remote only. The broker was restarted (empty chunk and index caches) and the ")
                .append(evicted).append(" remote segment objects were evicted from the page cache before reading (the local "
                        + "twin was read once, untimed, to warm up the broker's JIT). Default read settings (4 MiB chunks, 4 chunks read ahead by 2 threads, zero copy from the "
                        + "object files, 10 reader threads)").append(overrides.isEmpty() ? "" : ", overridden: `"
                        + String.join("`, `", overrides) + "`").append("; consumer defaults "
                        + "(max.partition.fetch.bytes 1 MiB).\n\n");
        out.append("| figure | value |\n|---|---:|\n");
        out.append(String.format(Locale.ROOT, "| cold remote fetch, first-byte latency (median of %d, ms) | %.1f |%n",
                sorted.length, sorted[sorted.length / 2] / 1000.0));
        out.append(String.format(Locale.ROOT, "| cold remote fetch, first-byte latency (max, ms) | %.1f |%n",
                sorted[sorted.length - 1] / 1000.0));
        out.append(String.format(Locale.ROOT, "| remote read from offset 0, one consumer (records/s) | %.0f |%n", remote[0]));
        out.append(String.format(Locale.ROOT, "| remote read from offset 0, one consumer (MiB/s of values) | %.1f |%n", remote[1]));
        out.append(String.format(Locale.ROOT, "| remote read, broker CPU-seconds per GiB read | %.2f |%n", remote[3]));
        out.append(String.format(Locale.ROOT, "| remote read, chunks a fetch loaded itself (misses / lookups) | %.0f / %.0f |%n",
                chunkMisses, chunkLookups));
        out.append(String.format(Locale.ROOT, "| local read of the same data, one consumer (records/s) | %.0f |%n", local[0]));
        out.append(String.format(Locale.ROOT, "| local read of the same data, one consumer (MiB/s of values) | %.1f |%n", local[1]));
        out.append(String.format(Locale.ROOT, "| local read, broker CPU-seconds per GiB read | %.2f |%n", local[3]));
        out.append(String.format(Locale.ROOT, "| remote / local throughput (target >= 0.80) | %.2f |%n",
                remote[1] / local[1]));
        return out.toString();
    }

    private static String catchUpReport(int rate, int seconds, TieredCatchUp.Run alone, TieredCatchUp.Run with) {
        if (alone == null) {
            return "";
        }
        StringBuilder out = new StringBuilder("\n");
        out.append("Catch-up reads against produce latency: one producer (`acks=all`, `linger.ms=0`, ").append(rate)
                .append(" records/s for ").append(seconds).append(" s) to a topic of its own, alone and then while one "
                        + "consumer reads the tiered topic's remote range from offset 0 over and over (remote objects "
                        + "evicted from the page cache first). Target: p99 with catch-up at most 1.10x p99 alone.\n\n");
        out.append("| figure | alone | with catch-up |\n|---|---:|---:|\n");
        for (double p : new double[] {50, 99, 99.9}) {
            out.append(String.format(Locale.ROOT, "| produce p%s (ms) | %.2f | %.2f |%n",
                    p == 99.9 ? "99.9" : String.valueOf((int) p), alone.percentileMs(p), with.percentileMs(p)));
        }
        out.append(String.format(Locale.ROOT, "| records acknowledged | %d | %d |%n", alone.sent(), with.sent()));
        out.append(String.format(Locale.ROOT, "| catch-up consumer (MiB/s of values) | - | %.1f |%n",
                with.catchUpMiBps()));
        out.append(String.format(Locale.ROOT, "| p99 with / alone | | %.2fx |%n",
                with.percentileMs(99) / alone.percentileMs(99)));
        return out.toString();
    }

    private static List<String> all(String[] args, String name) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                values.add(args[i + 1]);
            }
        }
        return values;
    }

    private static String arg(String[] args, String name, String defaultValue) {
        for (int i = 0; i + 1 < args.length; i++) {
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

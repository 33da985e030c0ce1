package io.varve.bench.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import io.varve.bench.ProcStats;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The broker's CPU seconds per GiB produced (acks=all, as fast as one producer goes) and per GiB consumed, on a shared
 * machine where wall-clock throughput means little: a fresh topic of PARTITIONS partitions, WARMUP untimed records,
 * then RECORDS records of RECORD_BYTES bytes with the broker's {@code /proc} CPU time read around them, then one
 * consumer (assign, no group) reading every record back, metered the same way. Besides the totals it prints the CPU
 * per thread group of the broker ({@code /proc/PID/task/}*), which says where the seconds went (network threads,
 * request threads, GC, JIT). With RATE &gt; 0 the produce phase is paced to RATE records/s instead and prints the
 * send-to-ack latency percentiles too.
 *
 * <p>usage: ProduceCpu BOOTSTRAP BROKER_PID TOPIC PARTITIONS RECORDS RECORD_BYTES WARMUP [RATE]
 *
 * <p>Prints {@code RESULT phase=produce cpuSeconds=X gib=G cpuPerGib=Y ...} and {@code RESULT phase=consume ...}.
 */
public final class ProduceCpu {
    private static final double GIB = 1024.0 * 1024 * 1024;

    private ProduceCpu() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 7) {
            System.err.println(
                    "usage: ProduceCpu BOOTSTRAP BROKER_PID TOPIC PARTITIONS RECORDS RECORD_BYTES WARMUP [RATE]");
            System.exit(2);
        }
        String bootstrap = args[0];
        long pid = Long.parseLong(args[1]);
        String topic = args[2];
        int partitions = Integer.parseInt(args[3]);
        long records = Long.parseLong(args[4]);
        int recordBytes = Integer.parseInt(args[5]);
        long warmup = Long.parseLong(args[6]);
        int rate = args.length > 7 ? Integer.parseInt(args[7]) : 0;

        Properties a = new Properties();
        a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(a)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) -1))).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }

        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        byte[] value = new byte[recordBytes];
        new java.util.Random(42).nextBytes(value);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            send(producer, topic, value, warmup, 0, null);
            Map<String, Double> threadsBefore = threadCpu(pid);
            double before = ProcStats.cpuSeconds(pid);
            long[] latenciesMicros = rate > 0 ? new long[(int) records] : null;
            long start = System.nanoTime();
            send(producer, topic, value, records, rate, latenciesMicros);
            long elapsed = System.nanoTime() - start;
            double after = ProcStats.cpuSeconds(pid);
            report("produce", after - before, records * (double) recordBytes / GIB, elapsed, threadsBefore, pid);
            if (latenciesMicros != null) {
                Arrays.sort(latenciesMicros);
                System.out.printf("RESULT phase=latency p50Ms=%.2f p99Ms=%.2f p999Ms=%.2f maxMs=%.2f%n",
                        pct(latenciesMicros, 0.50), pct(latenciesMicros, 0.99), pct(latenciesMicros, 0.999),
                        latenciesMicros[latenciesMicros.length - 1] / 1000.0);
            }
        }

        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        long total = records + warmup;
        List<TopicPartition> all = IntStream.range(0, partitions).mapToObj(i -> new TopicPartition(topic, i)).toList();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
            consumer.assign(all);
            consumer.seekToBeginning(all);
            // one small poll first, so the connection and the first fetch are not metered
            long read = consumer.poll(Duration.ofSeconds(10)).count();
            Map<String, Double> threadsBefore = threadCpu(pid);
            double before = ProcStats.cpuSeconds(pid);
            long start = System.nanoTime();
            long bytes = 0;
            long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
            while (read < total && System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofSeconds(1));
                read += batch.count();
                bytes += (long) batch.count() * recordBytes;
            }
            long elapsed = System.nanoTime() - start;
            double after = ProcStats.cpuSeconds(pid);
            report("consume", after - before, bytes / GIB, elapsed, threadsBefore, pid);
        }
    }

    private static void send(
            KafkaProducer<byte[], byte[]> producer, String topic, byte[] value, long n, int rate, long[] latencies)
            throws Exception {
        AtomicReference<Exception> failure = new AtomicReference<>();
        AtomicLong acked = new AtomicLong();
        long start = System.nanoTime();
        for (long i = 0; i < n; i++) {
            if (rate > 0) {
                long due = start + i * 1_000_000_000L / rate;
                while (System.nanoTime() < due) {
                    Thread.onSpinWait();
                }
            }
            long sentNanos = System.nanoTime();
            int index = (int) i;
            producer.send(new ProducerRecord<>(topic, value), (md, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                }
                if (latencies != null) {
                    latencies[index] = (System.nanoTime() - sentNanos) / 1000;
                }
                acked.incrementAndGet();
            });
        }
        producer.flush();
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    private static double pct(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1000.0;
    }

    private static void report(
            String phase, double cpu, double gib, long elapsedNanos, Map<String, Double> threadsBefore, long pid)
            throws IOException {
        System.out.printf("RESULT phase=%s cpuSeconds=%.2f gib=%.3f cpuPerGib=%.2f wallSeconds=%.1f%n",
                phase, cpu, gib, cpu / gib, elapsedNanos / 1e9);
        Map<String, Double> after = threadCpu(pid);
        Map<String, Double> delta = new TreeMap<>();
        after.forEach((group, seconds) -> delta.merge(group, seconds - threadsBefore.getOrDefault(group, 0.0),
                Double::sum));
        List<Map.Entry<String, Double>> sorted = new ArrayList<>(delta.entrySet());
        sorted.sort(Map.Entry.<String, Double>comparingByValue().reversed());
        double usr = 0;
        double sys = 0;
        for (Map.Entry<String, Double> e : sorted) {
            if (e.getKey().endsWith(".usr")) {
                usr += e.getValue();
            } else {
                sys += e.getValue();
            }
        }
        StringBuilder line = new StringBuilder(
                String.format("THREADS phase=%s usrPerGib=%.2f sysPerGib=%.2f", phase, usr / gib, sys / gib));
        for (Map.Entry<String, Double> e : sorted) {
            if (e.getValue() >= 0.01) {
                line.append(String.format(" %s=%.2f", e.getKey(), e.getValue() / gib));
            }
        }
        System.out.println(line);
    }

    /**
     * CPU seconds per thread group (the thread name without its trailing number), user ({@code .usr}) and system
     * ({@code .sys}) apart, of the threads alive now (clock ticks of 1/100 s, Linux's USER_HZ).
     */
    private static Map<String, Double> threadCpu(long pid) throws IOException {
        Map<String, Double> byGroup = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException gone) {
                    continue;
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
                String group = name.replaceAll("[-#\\s]*\\d+$", "").replaceAll("\\s+", "_");
                // user and system time apart: system time is the syscalls (socket reads, file writes, sendfile)
                byGroup.merge(group + ".usr", Long.parseLong(fields[11]) / 100.0, Double::sum);
                byGroup.merge(group + ".sys", Long.parseLong(fields[12]) / 100.0, Double::sum);
            }
        }
        return byGroup;
    }
}

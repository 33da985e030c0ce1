package io.varve.bench.driver;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.IntStream;

import io.varve.bench.ProcStats;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What a consumer of many partitions costs the broker while little happens on each: one KafkaConsumer assigned every
 * partition of a topic, a producer trickling RATE records/s over them round-robin. After a warm-up (the consumer has
 * read WARMUP records, so its fetch session, if any, is open), the broker's CPU time is read around SECONDS of it.
 * Prints {@code RESULT brokerCpuSeconds=X seconds=S consumed=N fetches=F}.
 *
 * <p>usage: FetchSessionLoad BOOTSTRAP TOPIC PARTITIONS RATE SECONDS BROKER_PID
 */
public final class FetchSessionLoad {
    private static final int WARMUP_RECORDS = 200;

    private FetchSessionLoad() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: FetchSessionLoad BOOTSTRAP TOPIC PARTITIONS RATE SECONDS BROKER_PID");
            System.exit(2);
        }
        String bootstrap = args[0];
        String topic = args[1];
        int partitions = Integer.parseInt(args[2]);
        int ratePerSec = Integer.parseInt(args[3]);
        long measuredNanos = Long.parseLong(args[4]) * 1_000_000_000L;
        long brokerPid = Long.parseLong(args[5]);

        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        byte[] value = "x".repeat(100).getBytes(StandardCharsets.UTF_8);
        List<TopicPartition> all = IntStream.range(0, partitions).mapToObj(i -> new TopicPartition(topic, i)).toList();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            consumer.assign(all);
            consumer.seekToBeginning(all);
            long intervalNanos = 1_000_000_000L / Math.max(1, ratePerSec);
            long nextSendNanos = System.nanoTime();
            int nextPartition = 0;
            long consumed = 0;
            long warmupDeadline = System.nanoTime() + 120_000_000_000L;
            double cpuAtStart = -1;
            long measureStart = 0;
            double fetchesAtStart = 0;
            long consumedAtStart = 0;
            while (true) {
                long now = System.nanoTime();
                while (nextSendNanos <= now) {
                    producer.send(new ProducerRecord<>(topic, nextPartition, null, value));
                    nextPartition = (nextPartition + 1) % partitions;
                    nextSendNanos += intervalNanos;
                }
                consumed += consumer.poll(Duration.ofMillis(10)).count();
                if (cpuAtStart < 0) {
                    if (consumed >= WARMUP_RECORDS) {
                        cpuAtStart = ProcStats.cpuSeconds(brokerPid);
                        measureStart = System.nanoTime();
                        fetchesAtStart = metric(consumer, "fetch-total");
                        consumedAtStart = consumed;
                    } else if (now > warmupDeadline) {
                        System.err.println("FetchSessionLoad: the consumer read " + consumed + " of "
                                + WARMUP_RECORDS + " warm-up records in 120 s");
                        System.exit(1);
                    }
                } else if (now - measureStart >= measuredNanos) {
                    double cpu = ProcStats.cpuSeconds(brokerPid) - cpuAtStart;
                    double seconds = (System.nanoTime() - measureStart) / 1e9;
                    System.out.printf(java.util.Locale.ROOT,
                            "RESULT brokerCpuSeconds=%.3f seconds=%.1f consumed=%d fetches=%.0f%n", cpu, seconds,
                            consumed - consumedAtStart, metric(consumer, "fetch-total") - fetchesAtStart);
                    return;
                }
            }
        }
    }

    private static double metric(KafkaConsumer<?, ?> consumer, String name) {
        for (var e : consumer.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals("consumer-fetch-manager-metrics")) {
                Metric m = e.getValue();
                if (m.metricValue() instanceof Number n) {
                    return n.doubleValue();
                }
            }
        }
        return 0;
    }
}

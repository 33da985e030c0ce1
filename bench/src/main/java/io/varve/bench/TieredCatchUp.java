package io.varve.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
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
 * Whether catch-up reads of tiered data hurt producers (issue 18: produce p99 at most 10 % higher): one producer
 * writes to a topic of its own at a fixed rate below saturation ({@code acks=all}, 1 KiB records) for a fixed time,
 * once alone and once while a consumer reads the tiered topic's remote range from offset 0 as fast as it can (again
 * from 0 whenever it reaches the local start), after the remote objects were evicted from the page cache. Figures:
 * the producer's p50 / p99 / p99.9 send-to-ack latency in both runs and the catch-up consumer's throughput.
 */
final class TieredCatchUp {
    private static final String LIVE = "live";

    /** One fixed-rate run: latencies in microseconds (sorted) and the catch-up consumer's MiB/s (0 without one). */
    record Run(long[] latencyMicros, int sent, double catchUpMiBps) {
        double percentileMs(double p) {
            if (latencyMicros.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.min(latencyMicros.length - 1, Math.ceil(p / 100.0 * latencyMicros.length) - 1);
            return latencyMicros[Math.max(0, i)] / 1000.0;
        }
    }

    private TieredCatchUp() {
    }

    /** Creates the live topic; the runs then write to it. */
    static void createLiveTopic(Admin admin) throws Exception {
        admin.createTopics(List.of(new NewTopic(LIVE, 1, (short) 1))).all().get();
    }

    /**
     * Produces at {@code ratePerSecond} for {@code seconds}; with {@code tiered} set, a consumer reads its {@code
     * [0, remoteEnd)} meanwhile, over and over.
     */
    static Run run(String bootstrap, int ratePerSecond, int seconds, int recordBytes, TopicPartition tiered,
                   long remoteEnd, Path remoteDir) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong catchUpBytes = new AtomicLong();
        Thread reader = null;
        if (tiered != null) {
            PageCache.dropSegments(remoteDir);
            reader = new Thread(() -> catchUp(bootstrap, tiered, remoteEnd, stop, catchUpBytes), "catch-up");
            reader.setDaemon(true);
            reader.start();
        }
        int total = ratePerSecond * seconds;
        long[] latencies = new long[total];
        AtomicInteger acked = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        byte[] value = new byte[recordBytes];
        Arrays.fill(value, (byte) 'p');
        long start;
        long end;
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            // warm the connection and metadata before the clock starts
            producer.send(new ProducerRecord<>(LIVE, 0, null, value)).get();
            start = System.nanoTime();
            long intervalNanos = 1_000_000_000L / ratePerSecond;
            for (int i = 0; i < total; i++) {
                long due = start + i * intervalNanos;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait); // pacing the load, as ProducerPerformance's throttle does
                }
                long sentNanos = System.nanoTime();
                int index = i;
                producer.send(new ProducerRecord<>(LIVE, 0, null, value), (metadata, error) -> {
                    if (error != null) {
                        failed.incrementAndGet();
                    } else {
                        latencies[index] = (System.nanoTime() - sentNanos) / 1000;
                    }
                    acked.incrementAndGet();
                });
            }
            producer.flush();
            end = System.nanoTime();
        } finally {
            stop.set(true);
        }
        if (reader != null) {
            reader.join(Duration.ofSeconds(30).toMillis());
        }
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " of " + total + " records were not acknowledged");
        }
        long[] sorted = latencies.clone();
        Arrays.sort(sorted);
        double seconds1 = (end - start) / 1e9;
        return new Run(sorted, acked.get(), catchUpBytes.get() / seconds1 / (1 << 20));
    }

    private static void catchUp(String bootstrap, TopicPartition tp, long remoteEnd, AtomicBoolean stop,
                                AtomicLong bytes) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            while (!stop.get()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100)).records(tp)) {
                    bytes.addAndGet(r.value().length);
                }
                if (consumer.position(tp) >= remoteEnd) {
                    consumer.seek(tp, 0); // stay in the remote range: start over
                }
            }
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(p);
    }
}

package io.varve.bench.driver;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Many producer clients, each with its own connection, sharing one fixed total rate: record i goes to
 * producer i mod N at start + i/rate. Prints one RESULT line with throughput and acknowledgement latency
 * percentiles (ms), measured like ProducerPerformance: from send() to the callback.
 *
 * <p>usage: ManyProducers BOOTSTRAP TOPIC PRODUCERS RATE_PER_SEC SECONDS RECORD_BYTES ACKS
 */
public final class ManyProducers {

    private static final int SENDER_THREADS = 4;

    private ManyProducers() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: ManyProducers BOOTSTRAP TOPIC PRODUCERS RATE_PER_SEC SECONDS RECORD_BYTES ACKS");
            System.exit(2);
        }
        String bootstrap = args[0];
        String topic = args[1];
        int producerCount = Integer.parseInt(args[2]);
        int ratePerSec = Integer.parseInt(args[3]);
        int seconds = Integer.parseInt(args[4]);
        int recordBytes = Integer.parseInt(args[5]);
        String acks = args[6];
        int total = ratePerSec * seconds;

        List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>(producerCount);
        for (int i = 0; i < producerCount; i++) {
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ProducerConfig.ACKS_CONFIG, acks);
            props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            props.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-many-" + i);
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props);
            producer.partitionsFor(topic);  // connect and learn the topic before the clock starts
            producers.add(producer);
        }
        System.out.println("connected " + producerCount + " producers");

        byte[] payload = new byte[recordBytes];
        new Random(42).nextBytes(payload);
        long[] latencyNanos = new long[total];
        Arrays.fill(latencyNanos, -1);
        AtomicInteger errors = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(total);
        long startNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        long[] lastAckNanos = new long[1];
        List<Thread> senders = new ArrayList<>();
        for (int t = 0; t < SENDER_THREADS; t++) {
            int first = t;
            Thread sender = new Thread(() -> {
                for (int i = first; i < total; i += SENDER_THREADS) {
                    long due = startNanos + (long) (i * (1e9 / ratePerSec));
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    int index = i;
                    long sentNanos = System.nanoTime();
                    producers.get(i % producerCount).send(new ProducerRecord<>(topic, payload), (metadata, e) -> {
                        long now = System.nanoTime();
                        if (e != null) {
                            errors.incrementAndGet();
                        } else {
                            latencyNanos[index] = now - sentNanos;
                        }
                        synchronized (lastAckNanos) {
                            lastAckNanos[0] = Math.max(lastAckNanos[0], now);
                        }
                        done.countDown();
                    });
                }
            }, "sender-" + t);
            sender.start();
            senders.add(sender);
        }
        for (Thread sender : senders) {
            sender.join();
        }
        boolean complete = done.await(seconds + 120L, TimeUnit.SECONDS);
        for (KafkaProducer<byte[], byte[]> producer : producers) {
            producer.close(java.time.Duration.ofSeconds(5));
        }
        long acked = Arrays.stream(latencyNanos).filter(n -> n >= 0).count();
        long[] sorted = Arrays.stream(latencyNanos).filter(n -> n >= 0).sorted().toArray();
        double elapsedSeconds;
        synchronized (lastAckNanos) {
            elapsedSeconds = (lastAckNanos[0] - startNanos) / 1e9;
        }
        System.out.println(String.format(Locale.ROOT,
                "RESULT complete=%s records=%d errors=%d seconds=%.3f recordsPerSec=%.1f mibPerSec=%.3f "
                        + "p50=%.3f p99=%.3f p999=%.3f max=%.3f",
                complete, acked, errors.get(), elapsedSeconds, acked / elapsedSeconds,
                acked * (double) recordBytes / elapsedSeconds / (1024 * 1024),
                percentileMillis(sorted, 0.50), percentileMillis(sorted, 0.99), percentileMillis(sorted, 0.999),
                percentileMillis(sorted, 1.0)));
        System.exit(complete && errors.get() == 0 ? 0 : 1);
    }

    private static double percentileMillis(long[] sorted, double quantile) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
        return sorted[Math.max(0, index)] / 1e6;
    }
}

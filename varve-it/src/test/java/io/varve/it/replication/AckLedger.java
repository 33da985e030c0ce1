package io.varve.it.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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
 * Idempotent {@code acks=all} producers, one per partition, each sending values {@code "<producer>:<sequence>"} in
 * sequence order on a thread of its own while a test injects faults, and recording every sequence the cluster
 * acknowledged. {@link #verify} then reads the whole topic and proves the durability contract: every acknowledged
 * record is present, no record is present twice, and each producer's records are in its send order.
 */
final class AckLedger implements AutoCloseable {
    private final String topic;
    private final int producers;
    private final String bootstrap;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final Map<Integer, Set<Long>> acked = new ConcurrentHashMap<>();
    private final AtomicLong ackCount = new AtomicLong();
    private final AtomicLong failureCount = new AtomicLong();
    private final AtomicReference<Exception> lastFailure = new AtomicReference<>();
    private final CountDownLatch stopped;

    private AckLedger(String bootstrap, String topic, int producers) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.producers = producers;
        this.stopped = new CountDownLatch(producers);
    }

    /** Starts one producer per partition {@code 0..producers-1} of {@code topic}. */
    static AckLedger start(String bootstrap, String topic, int producers) {
        AckLedger ledger = new AckLedger(bootstrap, topic, producers);
        for (int p = 0; p < producers; p++) {
            int producer = p;
            ledger.acked.put(producer, ConcurrentHashMap.newKeySet());
            Thread thread = new Thread(() -> ledger.produce(producer), "ack-ledger-" + producer);
            thread.setDaemon(true);
            ledger.threads.add(thread);
            thread.start();
        }
        return ledger;
    }

    private void produce(int producer) {
        try (KafkaProducer<byte[], byte[]> client = new KafkaProducer<>(producerProps(bootstrap, producer))) {
            long sequence = 0;
            // At most this many unacknowledged sends per producer: a bound, and enough to keep batches flowing.
            java.util.concurrent.Semaphore window = new java.util.concurrent.Semaphore(200);
            while (running.get()) {
                if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                long seq = sequence++;
                byte[] value = (producer + ":" + seq).getBytes(StandardCharsets.UTF_8);
                client.send(new ProducerRecord<>(topic, producer, null, value), (metadata, error) -> {
                    window.release();
                    if (error == null) {
                        acked.get(producer).add(seq);
                        ackCount.incrementAndGet();
                    } else {
                        failureCount.incrementAndGet();
                        lastFailure.set(error);
                    }
                });
            }
            client.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            lastFailure.set(e);
        } finally {
            stopped.countDown();
        }
    }

    private static Properties producerProps(String bootstrap, int producer) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "ack-ledger-" + producer);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "50");
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "500");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "50");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
        p.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, "1000");
        p.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, "2000");
        return p;
    }

    /** Acknowledgements so far, all producers together. */
    long acknowledged() {
        return ackCount.get();
    }

    long failures() {
        return failureCount.get();
    }

    Exception lastFailure() {
        return lastFailure.get();
    }

    /** Stops sending and waits until every send has an answer (acknowledged or failed for good). */
    void stop(Duration bound) throws InterruptedException {
        running.set(false);
        assertThat(stopped.await(bound.toMillis(), TimeUnit.MILLISECONDS))
                .as("every producer of the ledger stopped within %s (last failure: %s)", bound, lastFailure.get())
                .isTrue();
    }

    /**
     * Reads every partition from its start to its end offset (the high watermark) through {@code readBootstrap} and
     * checks the contract. Returns the number of records read.
     */
    long verify(String readBootstrap, Duration bound) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, readBootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        Map<Integer, List<Long>> read = new HashMap<>();
        long total = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int i = 0; i < producers; i++) {
                partitions.add(new TopicPartition(topic, i));
                read.put(i, new ArrayList<>());
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, bound);
            long deadline = System.nanoTime() + bound.toNanos();
            while (!reachedEnds(consumer, ends)) {
                assertThat(System.nanoTime())
                        .as("read %s up to %s within %s", topic, ends, bound)
                        .isLessThan(deadline);
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    String[] parts = new String(record.value(), StandardCharsets.UTF_8).split(":");
                    int producer = Integer.parseInt(parts[0]);
                    assertThat(producer).as("producer of %s", record).isEqualTo(record.partition());
                    read.get(producer).add(Long.parseLong(parts[1]));
                    total++;
                }
            }
        }
        for (int producer = 0; producer < producers; producer++) {
            List<Long> sequences = read.get(producer);
            Set<Long> seen = new TreeSet<>();
            long previous = -1;
            for (long sequence : sequences) {
                assertThat(seen.add(sequence))
                        .as("producer %d's record %d is in the log once", producer, sequence)
                        .isTrue();
                assertThat(sequence)
                        .as("producer %d's records are in send order", producer)
                        .isGreaterThan(previous);
                previous = sequence;
            }
            Set<Long> missing = new TreeSet<>(acked.get(producer));
            missing.removeAll(seen);
            assertThat(missing)
                    .as(
                            "producer %d's acknowledged records missing from the log (%d acknowledged, %d read)",
                            producer, acked.get(producer).size(), sequences.size())
                    .isEmpty();
        }
        return total;
    }

    private static boolean reachedEnds(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        running.set(false);
        threads.forEach(Thread::interrupt);
    }
}

package io.varve.bench.driver;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
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
 * One record into every partition of some topics, then every one of them read back from the start: the round trip over
 * all partitions of a broker holding many. Prints {@code RESULT ok=B produce_ms=N consume_ms=N}.
 *
 * <p>usage: PartitionRoundTrip BOOTSTRAP TOPIC[,TOPIC...] PARTITIONS_PER_TOPIC TIMEOUT_S
 */
public final class PartitionRoundTrip {

    private PartitionRoundTrip() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: PartitionRoundTrip BOOTSTRAP TOPIC PARTITIONS TIMEOUT_S");
            System.exit(2);
        }
        String bootstrap = args[0];
        List<String> topics = List.of(args[1].split(","));
        int perTopic = Integer.parseInt(args[2]);
        int partitions = perTopic * topics.size();
        long deadlineNanos = System.nanoTime() + Long.parseLong(args[3]) * 1_000_000_000L;

        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        // one record per partition: an idempotent producer over tens of thousands of fresh partitions only adds
        // per-partition sequence state, not what this measures
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.toString(Integer.parseInt(args[3]) * 1000));
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(Math.min(60_000, Integer.parseInt(args[3]) * 500)));
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(256L * 1024 * 1024));
        byte[] value = "x".repeat(100).getBytes(StandardCharsets.UTF_8);
        long start = System.nanoTime();
        AtomicInteger acked = new AtomicInteger();
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < partitions; i++) {
                producer.send(new ProducerRecord<>(topics.get(i / perTopic), i % perTopic, null, value), (m, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    } else {
                        acked.incrementAndGet();
                    }
                });
            }
            producer.flush();
        }
        long produceMs = (System.nanoTime() - start) / 1_000_000;
        if (failure.get() != null || acked.get() != partitions) {
            System.out.println("RESULT ok=false produce_ms=" + produceMs + " consume_ms=-1 acked=" + acked.get()
                    + " error=" + failure.get());
            return;
        }

        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
        start = System.nanoTime();
        BitSet seen = new BitSet(partitions);
        java.util.Map<String, Integer> topicIndex = new java.util.HashMap<>();
        for (int t = 0; t < topics.size(); t++) {
            topicIndex.put(topics.get(t), t);
        }
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
            List<TopicPartition> all = new ArrayList<>(partitions);
            for (int i = 0; i < partitions; i++) {
                all.add(new TopicPartition(topics.get(i / perTopic), i % perTopic));
            }
            consumer.assign(all);
            consumer.seekToBeginning(all);
            while (seen.cardinality() < partitions && System.nanoTime() < deadlineNanos) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    seen.set(topicIndex.get(r.topic()) * perTopic + r.partition());
                }
            }
        }
        long consumeMs = (System.nanoTime() - start) / 1_000_000;
        System.out.println("RESULT ok=" + (seen.cardinality() == partitions) + " produce_ms=" + produceMs
                + " consume_ms=" + consumeMs + " read=" + seen.cardinality());
    }
}

package io.varve.it.txn;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.varve.it.ClientSupport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Transactional producers and isolation-aware reads for the exactly-once integration tests. */
final class TxnClients {
    private TxnClients() {}

    /** Kafka's isolation.level values. */
    static final String READ_COMMITTED = "read_committed";

    static final String READ_UNCOMMITTED = "read_uncommitted";

    static KafkaProducer<byte[], byte[]> transactionalProducer(
            String bootstrap, String transactionalId, Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.putAll(extra);
        return new KafkaProducer<>(p);
    }

    static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String isolationLevel, Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
        p.putAll(extra);
        return new KafkaConsumer<>(p);
    }

    /**
     * The values of partitions 0..partitions-1, per partition in log order, read with {@code isolationLevel} from
     * the start to the end offset the consumer sees now (the last stable offset for read_committed).
     */
    static Map<Integer, List<String>> readValues(
            String bootstrap, String topic, int partitions, String isolationLevel) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, isolationLevel, Map.of())) {
            Map<Integer, List<String>> out = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                out.put(p, new ArrayList<>());
            }
            for (ConsumerRecord<byte[], byte[]> r : ClientSupport.readAll(consumer, topic, partitions)) {
                out.get(r.partition()).add(new String(r.value(), UTF_8));
            }
            return out;
        }
    }

    /** Every value of {@link #readValues}, partition after partition. */
    static List<String> allValues(Map<Integer, List<String>> byPartition) {
        List<String> out = new ArrayList<>();
        byPartition.keySet().stream().sorted().forEach(p -> out.addAll(byPartition.get(p)));
        return out;
    }
}

package io.varve.it;

import io.varve.broker.Broker;
import io.varve.broker.config.BrokerConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** A real Varve node in this JVM on an ephemeral loopback port, with data in a test directory. */
public final class TestBroker implements AutoCloseable {
    private final Path dataDir;
    private final Map<String, String> overrides;
    private Broker broker;
    private int port;

    public TestBroker(Path dataDir, Map<String, String> overrides) {
        this.dataDir = dataDir;
        this.overrides = overrides;
    }

    public static TestBroker start(Path dataDir) throws Exception {
        return start(dataDir, Map.of());
    }

    public static TestBroker start(Path dataDir, Map<String, String> overrides) throws Exception {
        TestBroker b = new TestBroker(dataDir, overrides);
        b.startNode();
        return b;
    }

    /** Starts (or restarts after {@link #stop()}) on a fresh ephemeral port with the same data. */
    public void startNode() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        props.put("log.dirs", dataDir.toString());
        props.put("num.network.threads", "2");
        props.put("num.io.threads", "4");
        // no HTTP listener unless a test asks for one (varve.http.listeners=http://127.0.0.1:0)
        props.put("varve.http.listeners", "");
        props.putAll(overrides);
        broker = new Broker(BrokerConfig.fromMap(props));
        broker.start();
        port = broker.boundPort("PLAINTEXT");
    }

    public void stop() {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }

    public void restart() throws Exception {
        stop();
        startNode();
    }

    /** The running node, for tests that use its Java API (null while stopped). */
    public Broker broker() {
        return broker;
    }

    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** The address of the listener named {@code listener} (SSL, SASL_PLAINTEXT …) on this run. */
    public String bootstrap(String listener) {
        return "127.0.0.1:" + broker.boundPort(listener);
    }

    public Path dataDir() {
        return dataDir;
    }

    public Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        return Admin.create(p);
    }

    public KafkaProducer<byte[], byte[]> producer(Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.putAll(extra);
        return new KafkaProducer<>(p);
    }

    public KafkaConsumer<byte[], byte[]> consumer(Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.putAll(extra);
        return new KafkaConsumer<>(p);
    }

    @Override
    public void close() {
        stop();
    }
}

package io.varve.it.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.it.TestBroker;
import io.varve.it.ToolRun;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client quotas with kafka-clients and Kafka's kafka-configs: quotas set and described with the tool and with Admin,
 * bad ones refused, and throttling as the test measures it — a producer with {@code producer_byte_rate} and a
 * consumer with {@code consumer_byte_rate} run at their quota within 10 %, while an unthrottled producer on the same
 * broker keeps most of the throughput it had alone.
 */
class ClientQuotasIT {
    private static final long RATE_BYTES = 256 * 1024;
    private static final byte[] VALUE = new byte[1024];

    @TempDir
    static Path dir;

    /** A short quota window so the measured rate settles in seconds (Kafka's keys; defaults 11 × 1 s). */
    private static TestBroker broker() throws Exception {
        return TestBroker.start(dir.resolve("data-" + System.nanoTime()), Map.of("quota.window.num", "4"));
    }

    @Test
    void kafkaConfigsSetsAndDescribesQuotasOfClientsUsersAndDefaults() throws Exception {
        try (TestBroker broker = broker()) {
            String[] common = {"--bootstrap-server", broker.bootstrap()};
            assertOk(configs(
                    common,
                    "--alter",
                    "--entity-type",
                    "clients",
                    "--entity-name",
                    "app",
                    "--add-config",
                    "producer_byte_rate=1048576,consumer_byte_rate=2097152"));
            assertOk(configs(
                    common,
                    "--alter",
                    "--entity-type",
                    "users",
                    "--entity-default",
                    "--add-config",
                    "request_percentage=50"));
            assertOk(configs(
                    common,
                    "--alter",
                    "--entity-type",
                    "users",
                    "--entity-name",
                    "alice",
                    "--entity-type",
                    "clients",
                    "--entity-name",
                    "app",
                    "--add-config",
                    "producer_byte_rate=4096"));

            ToolRun client = configs(common, "--describe", "--entity-type", "clients", "--entity-name", "app");
            assertOk(client);
            assertThat(client.output()).contains("producer_byte_rate=1048576", "consumer_byte_rate=2097152");
            ToolRun defaults = configs(common, "--describe", "--entity-type", "users", "--entity-default");
            assertOk(defaults);
            assertThat(defaults.output()).contains("request_percentage=50");
            ToolRun both = configs(
                    common,
                    "--describe",
                    "--entity-type",
                    "users",
                    "--entity-name",
                    "alice",
                    "--entity-type",
                    "clients",
                    "--entity-name",
                    "app");
            assertOk(both);
            assertThat(both.output()).contains("producer_byte_rate=4096");

            assertOk(configs(
                    common,
                    "--alter",
                    "--entity-type",
                    "clients",
                    "--entity-name",
                    "app",
                    "--delete-config",
                    "consumer_byte_rate"));
            ToolRun after = configs(common, "--describe", "--entity-type", "clients", "--entity-name", "app");
            assertThat(after.output()).contains("producer_byte_rate=1048576").doesNotContain("consumer_byte_rate");

            // a fractional byte rate is refused, and nothing is written
            ToolRun fraction = configs(
                    common,
                    "--alter",
                    "--entity-type",
                    "clients",
                    "--entity-name",
                    "app",
                    "--add-config",
                    "producer_byte_rate=1.5");
            assertThat(fraction.exitCode()).as(fraction.output()).isNotZero();
            assertThat(configs(common, "--describe", "--entity-type", "clients", "--entity-name", "app")
                            .output())
                    .contains("producer_byte_rate=1048576");
        }
    }

    @Test
    void adminAltersAndDescribesQuotasWithKafkasMatchRulesAndRefusesUnknownKeys() throws Exception {
        try (TestBroker broker = broker();
                Admin admin = broker.admin()) {
            ClientQuotaEntity bob = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "bob"));
            java.util.HashMap<String, String> defaultUser = new java.util.HashMap<>();
            defaultUser.put(ClientQuotaEntity.USER, null);
            ClientQuotaEntity anyUser = new ClientQuotaEntity(defaultUser);
            admin.alterClientQuotas(List.of(
                            new ClientQuotaAlteration(
                                    bob, List.of(new ClientQuotaAlteration.Op("consumer_byte_rate", 1000.0))),
                            new ClientQuotaAlteration(
                                    anyUser, List.of(new ClientQuotaAlteration.Op("consumer_byte_rate", 500.0)))))
                    .all()
                    .get(20, TimeUnit.SECONDS);

            assertThat(admin.describeClientQuotas(ClientQuotaFilter.containsOnly(
                                    List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "bob"))))
                            .entities()
                            .get(20, TimeUnit.SECONDS))
                    .containsOnlyKeys(bob)
                    .containsEntry(bob, Map.of("consumer_byte_rate", 1000.0));
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.containsOnly(
                                    List.of(ClientQuotaFilterComponent.ofDefaultEntity(ClientQuotaEntity.USER))))
                            .entities()
                            .get(20, TimeUnit.SECONDS))
                    .containsOnlyKeys(anyUser);
            // "any specified name" leaves the default out
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.containsOnly(
                                    List.of(ClientQuotaFilterComponent.ofEntityType(ClientQuotaEntity.USER))))
                            .entities()
                            .get(20, TimeUnit.SECONDS))
                    .containsOnlyKeys(bob);
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.all())
                            .entities()
                            .get(20, TimeUnit.SECONDS))
                    .containsOnlyKeys(bob, anyUser);

            assertThatThrownBy(() -> admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                                    bob, List.of(new ClientQuotaAlteration.Op("no_such_quota", 1.0)))))
                            .all()
                            .get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("no_such_quota");
            ClientQuotaEntity ipAndUser =
                    new ClientQuotaEntity(Map.of(ClientQuotaEntity.IP, "127.0.0.1", ClientQuotaEntity.USER, "bob"));
            assertThatThrownBy(() -> admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                                    ipAndUser, List.of(new ClientQuotaAlteration.Op("connection_creation_rate", 1.0)))))
                            .all()
                            .get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(InvalidRequestException.class);
            // validate-only writes nothing
            admin.alterClientQuotas(
                            List.of(new ClientQuotaAlteration(
                                    bob, List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 5.0)))),
                            new org.apache.kafka.clients.admin.AlterClientQuotasOptions().validateOnly(true))
                    .all()
                    .get(20, TimeUnit.SECONDS);
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.all())
                            .entities()
                            .get(20, TimeUnit.SECONDS)
                            .get(bob))
                    .doesNotContainKey("producer_byte_rate");
        }
    }

    @Test
    void aProducerIsThrottledToItsByteRateWhileAnUnthrottledOneKeepsItsThroughput() throws Exception {
        try (TestBroker broker = broker();
                Admin admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic("fast", 1, (short) 1), new NewTopic("slow", 1, (short) 1)))
                    .all()
                    .get(20, TimeUnit.SECONDS);
            assertOk(configs(
                    new String[] {"--bootstrap-server", broker.bootstrap()},
                    "--alter",
                    "--entity-type",
                    "clients",
                    "--entity-name",
                    "slow-producer",
                    "--add-config",
                    "producer_byte_rate=" + RATE_BYTES));

            double baseline;
            try (KafkaProducer<byte[], byte[]> fast = producer(broker, "fast-producer")) {
                baseline = produceFor(fast, "fast", Duration.ofSeconds(1), Duration.ofSeconds(4));
            }
            assertThat(baseline).as("baseline bytes/s").isGreaterThan(RATE_BYTES * 4);

            double[] rates = new double[2];
            try (KafkaProducer<byte[], byte[]> fast = producer(broker, "fast-producer");
                    KafkaProducer<byte[], byte[]> slow = producer(broker, "slow-producer")) {
                Thread fastThread = new Thread(
                        () -> rates[0] = produceFor(fast, "fast", Duration.ofSeconds(4), Duration.ofSeconds(8)));
                fastThread.start();
                // the quota's windows fill up in the first seconds (a quiet client starts with a burst): measure after
                rates[1] = produceFor(slow, "slow", Duration.ofSeconds(5), Duration.ofSeconds(10));
                fastThread.join(60_000);
            }
            assertThat(rates[1]).as("throttled producer bytes/s").isBetween(RATE_BYTES * 0.9, RATE_BYTES * 1.1);
            assertThat(rates[0])
                    .as("unthrottled producer bytes/s beside it, alone it did %.0f", baseline)
                    .isGreaterThan(baseline * 0.5);
        }
    }

    @Test
    void aConsumerIsThrottledToItsByteRate() throws Exception {
        try (TestBroker broker = broker();
                Admin admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic("backlog", 1, (short) 1)))
                    .all()
                    .get(20, TimeUnit.SECONDS);
            try (KafkaProducer<byte[], byte[]> producer = producer(broker, "filler")) {
                for (int i = 0; i < 12 * 1024; i++) { // 12 MiB: more than the test reads at the quota
                    producer.send(new ProducerRecord<>("backlog", VALUE));
                }
                producer.flush();
            }
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                            new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, "slow-consumer")),
                            List.of(new ClientQuotaAlteration.Op("consumer_byte_rate", (double) RATE_BYTES)))))
                    .all()
                    .get(20, TimeUnit.SECONDS);
            try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(Map.of(
                    ConsumerConfig.CLIENT_ID_CONFIG,
                    "slow-consumer",
                    // small fetches, so that the consumer's buffer at either end of the measurement is small
                    ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                    64 * 1024))) {
                consumer.assign(List.of(new org.apache.kafka.common.TopicPartition("backlog", 0)));
                // the first records start the clock: the burst an idle client may take passes in the warm-up
                long firstBytes = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (firstBytes == 0 && System.nanoTime() < deadline) {
                    firstBytes = valueBytes(consumer.poll(Duration.ofMillis(200)));
                }
                assertThat(firstBytes).as("records before the deadline").isPositive();
                long warmUpEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (System.nanoTime() < warmUpEnd) {
                    consumer.poll(Duration.ofMillis(100));
                }
                long measuredFrom = System.nanoTime();
                long end = measuredFrom + TimeUnit.SECONDS.toNanos(10);
                long bytes = 0;
                while (System.nanoTime() < end) {
                    bytes += valueBytes(consumer.poll(Duration.ofMillis(100)));
                }
                double rate = bytes * 1e9 / (System.nanoTime() - measuredFrom);
                assertThat(rate).as("throttled consumer bytes/s").isBetween(RATE_BYTES * 0.9, RATE_BYTES * 1.1);
            }
        }
    }

    private static long valueBytes(Iterable<ConsumerRecord<byte[], byte[]>> records) {
        long bytes = 0;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            bytes += r.serializedValueSize();
        }
        return bytes;
    }

    @Test
    void aClientOverItsControllerMutationRateIsRefusedWithThrottlingQuotaExceeded() throws Exception {
        try (TestBroker broker = broker();
                Admin admin = broker.admin()) {
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                            new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, "creator")),
                            List.of(new ClientQuotaAlteration.Op("controller_mutation_rate", 1.0)))))
                    .all()
                    .get(20, TimeUnit.SECONDS);
            java.util.Properties props = new java.util.Properties();
            props.put("bootstrap.servers", broker.bootstrap());
            props.put("client.id", "creator");
            try (Admin creator = Admin.create(props)) {
                org.apache.kafka.clients.admin.CreateTopicsOptions noRetry =
                        new org.apache.kafka.clients.admin.CreateTopicsOptions().retryOnQuotaViolation(false);
                // within the quota when it arrives: created, and it takes the client over (ten partitions at 1/s)
                creator.createTopics(List.of(new NewTopic("many", 10, (short) 1)), noRetry)
                        .all()
                        .get(20, TimeUnit.SECONDS);
                assertThatThrownBy(() -> creator.createTopics(List.of(new NewTopic("one-more", 1, (short) 1)), noRetry)
                                .all()
                                .get(20, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(org.apache.kafka.common.errors.ThrottlingQuotaExceededException.class);
                // another client is not limited by it
                admin.createTopics(List.of(new NewTopic("other", 10, (short) 1)))
                        .all()
                        .get(20, TimeUnit.SECONDS);
                assertThat(admin.listTopics().names().get(20, TimeUnit.SECONDS))
                        .contains("many", "other")
                        .doesNotContain("one-more");
            }
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(TestBroker broker, String clientId) {
        return broker.producer(Map.of(
                ProducerConfig.CLIENT_ID_CONFIG,
                clientId,
                ProducerConfig.ACKS_CONFIG,
                "1",
                ProducerConfig.LINGER_MS_CONFIG,
                5,
                // a small buffer: send() blocks while throttled instead of queueing past the delivery timeout
                ProducerConfig.BUFFER_MEMORY_CONFIG,
                256 * 1024,
                ProducerConfig.MAX_BLOCK_MS_CONFIG,
                60_000));
    }

    /**
     * Sends as fast as the producer lets it for {@code warmUp + measured}; the acknowledged value bytes per second
     * of records sent after the warm-up.
     */
    private static double produceFor(
            KafkaProducer<byte[], byte[]> producer, String topic, Duration warmUp, Duration measured) {
        AtomicLong acked = new AtomicLong();
        AtomicBoolean measuring = new AtomicBoolean();
        long start = System.nanoTime();
        long measureFrom = start + warmUp.toNanos();
        long end = measureFrom + measured.toNanos();
        long measuredStart = 0;
        while (System.nanoTime() < end) {
            if (!measuring.get() && System.nanoTime() >= measureFrom) {
                measuring.set(true);
                measuredStart = System.nanoTime();
            }
            boolean counted = measuring.get();
            producer.send(new ProducerRecord<>(topic, VALUE), (metadata, error) -> {
                if (error == null && counted) {
                    acked.addAndGet(metadata.serializedValueSize());
                }
            });
        }
        long measuredEnd = System.nanoTime();
        producer.flush();
        return acked.get() * 1e9 / (measuredEnd - measuredStart);
    }

    private static void assertOk(ToolRun run) {
        assertThat(run.exitCode()).as(run.output()).isZero();
    }

    /** Kafka 4.4's kafka-configs (ConfigCommand), run as a process. */
    private static ToolRun configs(String[] common, String... args) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of(common));
        all.addAll(List.of(args));
        return ToolRun.run(dir, Duration.ofSeconds(60), "org.apache.kafka.tools.ConfigCommand", all);
    }
}

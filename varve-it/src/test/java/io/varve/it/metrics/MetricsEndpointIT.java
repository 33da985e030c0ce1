package io.varve.it.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.TestBroker;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} scraped while real kafka-clients produce and consume, parsed by the Prometheus client's own parser:
 * the counters move by what was sent, the lag is log end minus committed offset, and every name of
 * varve-http/README.md's table is served.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MetricsEndpointIT {
    private static final String TOPIC = "metrics-it";
    private static final int RECORDS = 200;
    private static final String GROUP = "metrics-it-group";
    private static final String FLUSHED_TOPIC = "metrics-it-flushed";
    private static final int FLUSHED_RECORDS = 5;
    /** The committed offset of partition 0, so its lag is its log end minus this. */
    private static final long COMMITTED = 7;
    /** The one client id with quotas: 1 KB/s produce, 4 KB/s fetch (a 40 KB allowance over ten windows). */
    private static final String THROTTLED = "metrics-it-throttled";

    private static final String QUOTA_TOPIC = "metrics-it-quota";
    private static final Map<String, String> THROTTLED_LABELS = Map.of("client_id", THROTTLED);
    private boolean throttledOnce;

    @TempDir
    static Path dir;

    private TestBroker broker;
    private int http;

    @BeforeAll
    void start() throws Exception {
        broker = TestBroker.start(
                dir.resolve("data"),
                // the per-partition and per-group families are computed at most every 500 ms: the tests poll for them
                Map.of("varve.http.listeners", "http://127.0.0.1:0", "varve.metrics.refresh.ms", "500"));
        http = broker.broker().httpPort(0);
        try (var admin = broker.admin()) {
            admin.createTopics(List.of(
                            new NewTopic(TOPIC, 2, (short) 1),
                            // fsyncs after every append, so the flush histogram moves by what was produced
                            new NewTopic(FLUSHED_TOPIC, 1, (short) 1).configs(Map.of("flush.messages", "1"))))
                    .all()
                    .get();
            admin.createTopics(List.of(new NewTopic(QUOTA_TOPIC, 1, (short) 1)))
                    .all()
                    .get();
            ClientQuotaEntity client = new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, THROTTLED));
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                            client,
                            List.of(
                                    new ClientQuotaAlteration.Op("producer_byte_rate", 1024.0),
                                    new ClientQuotaAlteration.Op("consumer_byte_rate", 4096.0),
                                    new ClientQuotaAlteration.Op("request_percentage", 200.0),
                                    new ClientQuotaAlteration.Op("controller_mutation_rate", 100.0)))))
                    .all()
                    .get();
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.describeClientQuotas(ClientQuotaFilter.all())
                    .entities()
                    .get()
                    .containsKey(client));
        }
    }

    @AfterAll
    void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    /** The throttled client's traffic, each part scraped right after it (a throttle counts for the quota's windows). */
    private synchronized void throttledTraffic() throws Exception {
        throttledOnce = true;
        long from = throttledProduce();
        throttledFetch(from);
        throttledCreateTopic();
    }

    /** 1 KB batches for the throttled consumer, then one 16 KB record of the throttled producer (6 KB over). */
    private long throttledProduce() throws Exception {
        long from;
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of(ProducerConfig.ACKS_CONFIG, "1"))) {
            from = producer.send(new ProducerRecord<>(QUOTA_TOPIC, new byte[1]))
                    .get()
                    .offset();
            for (int i = 0; i < 60; i++) {
                producer.send(new ProducerRecord<>(QUOTA_TOPIC, new byte[1024])).get(); // a batch each
            }
        }
        try (KafkaProducer<byte[], byte[]> producer =
                broker.producer(Map.of(ProducerConfig.ACKS_CONFIG, "1", ProducerConfig.CLIENT_ID_CONFIG, THROTTLED))) {
            producer.send(new ProducerRecord<>(QUOTA_TOPIC, new byte[16 * 1024]))
                    .get();
        }
        return from;
    }

    /** Over 60 KB fetched by the throttled consumer: 20 KB over its allowance. */
    private void throttledFetch(long from) {
        TopicPartition partition = new TopicPartition(QUOTA_TOPIC, 0);
        try (KafkaConsumer<byte[], byte[]> consumer =
                broker.consumer(Map.of(ConsumerConfig.CLIENT_ID_CONFIG, THROTTLED))) {
            consumer.assign(List.of(partition));
            consumer.seek(partition, from);
            int read = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (read < 62 && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(200)).count();
            }
            assertThat(read).as("the throttled consumer still reads everything").isGreaterThanOrEqualTo(62);
        }
    }

    private void throttledCreateTopic() throws Exception {
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrap(),
                AdminClientConfig.CLIENT_ID_CONFIG,
                THROTTLED))) {
            admin.createTopics(List.of(new NewTopic(QUOTA_TOPIC + "-" + System.nanoTime(), 2, (short) 1)))
                    .all()
                    .get();
        }
    }

    @Test
    void countersMoveByWhatWasProducedAndConsumedAndLagIsLogEndMinusCommitted() throws Exception {
        PrometheusScrape before = PrometheusScrape.scrape(http, false);
        double bytesInBefore = before.sum("kafka_server_brokertopicmetrics_bytesin_total", Map.of("topic", TOPIC));
        assertThat(bytesInBefore).isZero();

        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(
                        new ProducerRecord<>(TOPIC, i % 2, null, ("value-" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        List<TopicPartition> partitions = List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
        try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(
                Map.of(ConsumerConfig.GROUP_ID_CONFIG, GROUP, ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"))) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            int read = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (read < RECORDS && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(200)).count();
            }
            assertThat(read).isEqualTo(RECORDS);
            consumer.commitSync(Map.of(
                    partitions.get(0), new OffsetAndMetadata(COMMITTED),
                    partitions.get(1), new OffsetAndMetadata(RECORDS / 2)));
        }

        // the log sizes and the lag are at most one refresh interval old: poll until they show what was committed
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            PrometheusScrape after = PrometheusScrape.scrape(http, false);
            Map<String, String> topic = Map.of("topic", TOPIC);
            double logBytes = after.sum("kafka_log_log_size", topic);
            assertThat(after.sum("kafka_server_brokertopicmetrics_bytesin_total", topic))
                    .as("bytes in are the batch bytes appended: the size of the fresh topic's logs")
                    .isEqualTo(logBytes)
                    .isPositive();
            assertThat(after.sum("kafka_server_brokertopicmetrics_messagesin_total", topic))
                    .isEqualTo(RECORDS);
            assertThat(after.sum("kafka_log_log_logendoffset", topic)).isEqualTo(RECORDS);
            assertThat(after.sum("kafka_server_brokertopicmetrics_bytesout_total", topic))
                    .as("every record was fetched once")
                    .isGreaterThanOrEqualTo(logBytes);
            assertThat(after.sum("kafka_network_requestmetrics_requests_total", Map.of("request", "Produce")))
                    .isPositive();
            assertThat(after.value("kafka_network_requestmetrics_totaltimems_count", Map.of("request", "Produce")))
                    .isPositive();
            Map<String, String> produce = Map.of("request", "Produce");
            assertThat(after.value("kafka_network_requestmetrics_responsesendtimems_count", produce))
                    .as("every answered produce had its send timed")
                    .isEqualTo(after.value("kafka_network_requestmetrics_totaltimems_count", produce));
            assertThat(after.value("kafka_network_socketserver_networkprocessoravgidle_percent", Map.of()))
                    .isBetween(0.0, 1.0);
            assertThat(after.value(
                            "kafka_server_delayedoperationpurgatory_purgatorysize",
                            Map.of("delayedOperation", "Produce")))
                    .isZero();
            assertThat(after.value("jvm_memory_used_bytes", Map.of("area", "heap")))
                    .isPositive();
            assertThat(after.value("process_cpu_seconds_total", Map.of())).isPositive();
            assertThat(after.value("kafka_server_replicamanager_leadercount", Map.of()))
                    .isGreaterThanOrEqualTo(2);
            assertThat(after.value("kafka_controller_kafkacontroller_activecontrollercount", Map.of()))
                    .isEqualTo(1);

            double end0 = after.value("kafka_log_log_logendoffset", Map.of("topic", TOPIC, "partition", "0"));
            Map<String, String> p0 = Map.of("group", GROUP, "topic", TOPIC, "partition", "0");
            Map<String, String> p1 = Map.of("group", GROUP, "topic", TOPIC, "partition", "1");
            assertThat(after.value("kafka_consumergroup_group_lag", p0)).isEqualTo(end0 - COMMITTED);
            assertThat(after.value("kafka_consumergroup_group_lag", p1)).isZero();
            assertThat(after.value("kafka_consumergroup_group_offset", p0)).isEqualTo(COMMITTED);
            assertThat(after.value("kafka_consumergroup_group_lag_seconds", p0)).isGreaterThanOrEqualTo(0);
            assertThat(after.value("kafka_consumergroup_group_lag_seconds", p1)).isZero();
            assertThat(after.value("kafka_consumergroup_group_sum_lag", Map.of("group", GROUP)))
                    .isEqualTo(end0 - COMMITTED);
            assertThat(after.value("kafka_consumergroup_group_max_lag", Map.of("group", GROUP)))
                    .isEqualTo(end0 - COMMITTED);
        });
    }

    @Test
    void everyFlushOfAPartitionLogIsCountedInTheFlushHistogram() throws Exception {
        double before = PrometheusScrape.scrape(http, false)
                .value("kafka_log_logflushstats_logflushrateandtimems_count", Map.of());
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of(ProducerConfig.ACKS_CONFIG, "1"))) {
            for (int i = 0; i < FLUSHED_RECORDS; i++) {
                producer.send(new ProducerRecord<>(FLUSHED_TOPIC, new byte[100]))
                        .get(); // one append each
            }
        }
        PrometheusScrape after = PrometheusScrape.scrape(http, false);
        assertThat(after.value("kafka_log_logflushstats_logflushrateandtimems_count", Map.of()) - before)
                .as("flush.messages=1: one fsync per append")
                .isGreaterThanOrEqualTo(FLUSHED_RECORDS);
        assertThat(after.value("kafka_log_logflushstats_logflushrateandtimems_sum", Map.of()))
                .isPositive();
    }

    @Test
    void aThrottledClientsThrottleTimesAndRatesAreServedUnderItsClientIdAndItsFetchSessionIsCounted() throws Exception {
        throttledOnce = true;
        long from = throttledProduce();
        PrometheusScrape produced = PrometheusScrape.scrape(http, false);
        assertThat(produced.value("kafka_server_produce_throttle_time", THROTTLED_LABELS))
                .as("16 KB against at most a 10 KB allowance at 1 KB/s: 6 to 11 s")
                .isBetween(6_000.0, 11_000.0);
        assertThat(produced.value("kafka_server_produce_byte_rate", THROTTLED_LABELS))
                .isPositive();
        assertThat(produced.value("kafka_server_request_request_time", THROTTLED_LABELS))
                .isPositive();

        throttledFetch(from);
        PrometheusScrape fetched = PrometheusScrape.scrape(http, false);
        assertThat(fetched.value("kafka_server_fetch_throttle_time", THROTTLED_LABELS))
                .as("over 60 KB fetched against a 40 KB allowance")
                .isPositive();
        assertThat(fetched.value("kafka_server_fetch_byte_rate", THROTTLED_LABELS))
                .isPositive();
        assertThat(fetched.value("kafka_server_request_throttle_time", THROTTLED_LABELS))
                .as("200 % of a thread is never reached")
                .isZero();

        throttledCreateTopic();
        PrometheusScrape after = PrometheusScrape.scrape(http, false);
        assertThat(after.value("kafka_server_controllermutation_mutation_rate", THROTTLED_LABELS))
                .as("two partitions created")
                .isPositive();
        assertThat(after.value("kafka_server_controllermutation_throttle_time", THROTTLED_LABELS))
                .isZero();

        // a consumer's incremental fetch session is in the cache while it polls
        TopicPartition partition = new TopicPartition(QUOTA_TOPIC, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(Map.of())) {
            consumer.assign(List.of(partition));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                consumer.poll(Duration.ofMillis(100));
                PrometheusScrape now = PrometheusScrape.scrape(http, false);
                assertThat(now.value("kafka_server_fetchsessioncache_numincrementalfetchsessions", Map.of()))
                        .isGreaterThanOrEqualTo(1);
                assertThat(now.value("kafka_server_fetchsessioncache_numincrementalfetchpartitionscached", Map.of()))
                        .isGreaterThanOrEqualTo(1);
            });
        }
    }

    @Test
    void everyNameInTheDocumentedTableIsServedInBothFormats() throws Exception {
        if (!throttledOnce) {
            throttledTraffic(); // the client quota families have series only for clients with a quota
        }
        // a group with a committed offset, so the lag families have series
        try (KafkaConsumer<byte[], byte[]> consumer =
                broker.consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, GROUP + "-names"))) {
            consumer.commitSync(Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(0)));
        }
        List<String> documented = documentedNames();
        assertThat(documented).hasSizeGreaterThan(50);
        // the lag families show the commit once the group state has been computed again
        await().atMost(Duration.ofSeconds(30))
                .until(() -> PrometheusScrape.scrape(http, false).has("kafka_consumergroup_group_lag"));
        PrometheusScrape text = PrometheusScrape.scrape(http, false);
        assertThat(text.contentType).startsWith("text/plain; version=0.0.4");
        PrometheusScrape openMetrics = PrometheusScrape.scrape(http, true);
        assertThat(openMetrics.contentType).startsWith("application/openmetrics-text");
        for (String name : documented) {
            assertThat(text.has(name) || text.has(name + "_count"))
                    .as("%s in the text format", name)
                    .isTrue();
            assertThat(openMetrics.has(name) || openMetrics.has(name + "_count"))
                    .as("%s in OpenMetrics", name)
                    .isTrue();
        }
        assertThat(text.familyTypes.get("kafka_network_requestmetrics_totaltimems"))
                .isEqualTo("histogram");
        assertThat(text.familyTypes.get("kafka_server_brokertopicmetrics_bytesin"))
                .isEqualTo("counter");
    }

    @Test
    void healthEndpointsAnswerAndUnknownPathsGetA404WithAJsonBody() throws Exception {
        HttpResponse<String> live = PrometheusScrape.get(http, "/health/live", null);
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(live.body()).contains("\"status\":\"UP\"");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            HttpResponse<String> ready = PrometheusScrape.get(http, "/health/ready", null);
            assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
            assertThat(ready.body()).contains("\"status\":\"UP\"").contains("\"reasons\":[]");
        });
        HttpResponse<String> missing = PrometheusScrape.get(http, "/no/such/path", null);
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.headers().firstValue("Content-Type"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        assertThat(missing.body()).contains("\"error_code\":404").contains("/no/such/path");
    }

    /** The first column of the table in varve-http/README.md. */
    private static List<String> documentedNames() throws Exception {
        Path readme = Path.of("..", "varve-http", "README.md");
        Pattern row = Pattern.compile("^\\| `([a-z_]+)` \\| (counter|gauge|histogram) \\|");
        List<String> names = new ArrayList<>();
        for (String line : Files.readAllLines(readme)) {
            Matcher m = row.matcher(line);
            if (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }
}

package io.varve.it.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.TestBroker;
import io.varve.it.ToolRun;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client metrics (KIP-714): a subscription made with Kafka's own {@code kafka-client-metrics} tool, a kafka-clients
 * 4.4 producer with {@code enable.metrics.push=true}, and what it pushes served on {@code /metrics} labelled by its
 * client id.
 */
class ClientMetricsIT {
    private static final String CLIENT_ID = "metrics-push-producer";

    @TempDir
    Path dir;

    @Test
    void aProducerMatchedByAClientMetricsSubscriptionPushesItsMetricsToPrometheusLabelledByClientId() throws Exception {
        try (TestBroker broker =
                TestBroker.start(dir.resolve("data"), Map.of("varve.http.listeners", "http://127.0.0.1:0"))) {
            int http = broker.broker().httpPort(0);
            ToolRun alter = runTool(
                    "--bootstrap-server",
                    broker.bootstrap(),
                    "--alter",
                    "--name",
                    "producers",
                    "--metrics",
                    "org.apache.kafka.producer.",
                    "--interval",
                    "500",
                    "--match",
                    "client_id=metrics-push-.*");
            assertThat(alter.exitCode()).as(alter.output()).isZero();
            try (var admin = broker.admin()) {
                ConfigResource resource = new ConfigResource(ConfigResource.Type.CLIENT_METRICS, "producers");
                Config config =
                        admin.describeConfigs(List.of(resource)).all().get().get(resource);
                assertThat(config.get("metrics").value()).isEqualTo("org.apache.kafka.producer.");
                assertThat(config.get("interval.ms").value()).isEqualTo("500");
            }
            ToolRun describe = runTool("--bootstrap-server", broker.bootstrap(), "--describe", "--name", "producers");
            assertThat(describe.exitCode()).as(describe.output()).isZero();
            assertThat(describe.output()).contains("org.apache.kafka.producer.");

            try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of(
                    ProducerConfig.CLIENT_ID_CONFIG, CLIENT_ID, ProducerConfig.ENABLE_METRICS_PUSH_CONFIG, "true"))) {
                producer.send(new ProducerRecord<>("pushed", "v".getBytes())).get(30, TimeUnit.SECONDS);
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(300))
                        .untilAsserted(() -> {
                            PrometheusScrape scrape = PrometheusScrape.scrape(http, false);
                            List<PrometheusScrape.Sample> pushed = scrape.samples.stream()
                                    .filter(s -> s.name().startsWith("org_apache_kafka_producer_"))
                                    .filter(s -> CLIENT_ID.equals(s.labels().get("client_id")))
                                    .toList();
                            assertThat(pushed).isNotEmpty();
                            assertThat(pushed)
                                    .allSatisfy(s -> assertThat(s.labels()).containsKey("client_instance_id"));
                            assertThat(scrape.samples.stream()
                                            .anyMatch(s -> s.name().startsWith("org_apache_kafka_consumer_")))
                                    .isFalse();
                        });
            }
        }
    }

    /** Kafka's kafka-client-metrics (ClientMetricsCommand), run as a process. */
    private ToolRun runTool(String... args) throws IOException, InterruptedException {
        return ToolRun.run(dir, "org.apache.kafka.tools.ClientMetricsCommand", args);
    }
}

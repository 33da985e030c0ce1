package io.varve.it.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.http.HttpRequest;
import io.varve.http.HttpResponse;
import io.varve.it.TestBroker;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.Recording;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one {@code /metrics} scrape costs the broker: a node holding 1,000 partitions, one record in each and a consumer
 * group committed on all of them, scraped 100 times (after 50 untimed scrapes) through the code the HTTP route runs.
 * It prints the process CPU per scrape less what the process uses idle over as long, the scraping thread's CPU and
 * the bytes it allocated per scrape (varve-http/README.md keeps the figures), and fails when the scraping thread
 * spends more than {@link #MAX_THREAD_CPU_MS_PER_SCRAPE} or allocates more than {@link #MAX_ALLOCATED_KIB_PER_SCRAPE}:
 * the thread's own figures, because the process's CPU on a shared machine moves with whatever else runs. With {@code
 * -Dscrape.jfr=FILE} (and {@code -Dscrape.refresh.jfr=FILE} for the scrapes that compute everything) it records a JFR
 * profile of the measured scrapes ({@code jfr print --events jdk.ExecutionSample FILE}).
 */
class ScrapeCostIT {
    private static final int PARTITIONS = 1_000;
    private static final int WARM_UP_SCRAPES = 50;
    private static final int SCRAPES = 100;
    private static final String TOPIC = "scrape-cost";
    private static final String GROUP = "scrape-cost-group";
    /** Twice the target of 5 ms: CPU time under contention grows with cache misses on a shared machine. */
    private static final double MAX_THREAD_CPU_MS_PER_SCRAPE = 10.0;
    /** The response itself is ~1.2 MiB; every partition's families built again were ~17 MiB. */
    private static final double MAX_ALLOCATED_KIB_PER_SCRAPE = 4 * 1024;

    @TempDir
    Path dir;

    @Test
    void aScrapeOfOneThousandPartitionsWithTheirLagCostsTheBrokerAFewMillisecondsOfCpu() throws Exception {
        Cost cost = measure(Map.of(), System.getProperty("scrape.jfr"));
        assertThat(cost.threadCpuMs())
                .as("CPU of the scraping thread per scrape, ms")
                .isLessThanOrEqualTo(MAX_THREAD_CPU_MS_PER_SCRAPE);
        assertThat(cost.allocatedKiB())
                .as("KiB allocated by the scraping thread per scrape")
                .isLessThanOrEqualTo(MAX_ALLOCATED_KIB_PER_SCRAPE);
        assertThat(cost.lagSeries()).isEqualTo(PARTITIONS);
    }

    /**
     * With {@code varve.metrics.refresh.ms=0} every scrape computes the per-partition and per-group families: what one
     * refresh costs. Only printed; the default interval spreads it over the scrapes of 10 s.
     */
    @Test
    void aScrapeThatComputesEveryPartitionAndGroupFamilyServesTheSameSeries() throws Exception {
        Cost cost = measure(Map.of("varve.metrics.refresh.ms", "0"), System.getProperty("scrape.refresh.jfr"));
        assertThat(cost.lagSeries()).isEqualTo(PARTITIONS);
    }

    /** {@code processCpuMs}: the process's CPU per scrape less what it uses idle over as long. */
    private record Cost(double processCpuMs, double threadCpuMs, double allocatedKiB, int lagSeries) {}

    private Cost measure(Map<String, String> overrides, String jfr) throws Exception {
        try (TestBroker broker = TestBroker.start(dir.resolve("data"), overrides)) {
            try (var admin = broker.admin()) {
                admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                        .all()
                        .get();
                try (KafkaProducer<byte[], byte[]> producer = broker.producer(
                        Map.of(ProducerConfig.ACKS_CONFIG, "1", ProducerConfig.LINGER_MS_CONFIG, "20"))) {
                    for (int p = 0; p < PARTITIONS; p++) {
                        producer.send(new ProducerRecord<>(TOPIC, p, null, new byte[100]));
                    }
                    producer.flush();
                }
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    offsets.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(0));
                }
                admin.alterConsumerGroupOffsets(GROUP, offsets).all().get();
            }
            HttpRequest request = new HttpRequest("GET", "/metrics", Map.of(), "text/plain");
            // polls: with the default interval the committed offsets show once the state has been computed again
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> lagSeries(broker.broker().metrics().scrape(request)) == PARTITIONS);
            for (int i = 0; i < WARM_UP_SCRAPES; i++) {
                broker.broker().metrics().scrape(request);
            }

            com.sun.management.OperatingSystemMXBean os =
                    (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            Recording recording = null;
            if (jfr != null) {
                recording = new Recording();
                recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(2));
                recording.start();
            }
            long[] wallNanos = new long[SCRAPES];
            long bytes = 0;
            long wallBefore = System.nanoTime();
            long processCpuBefore = os.getProcessCpuTime();
            long threadCpuBefore = threads.getCurrentThreadCpuTime();
            long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
            HttpResponse last = null;
            for (int i = 0; i < SCRAPES; i++) {
                long start = System.nanoTime();
                last = broker.broker().metrics().scrape(request);
                wallNanos[i] = System.nanoTime() - start;
                bytes += last.body().length;
            }
            long processCpu = os.getProcessCpuTime() - processCpuBefore;
            long wall = System.nanoTime() - wallBefore;
            // What the node (and this JVM) uses without scraping over as long: its raft ticks, timers and so on.
            // Not a synchronisation: the window is the measurement.
            long idleCpuBefore = os.getProcessCpuTime();
            long idleStart = System.nanoTime();
            long idleWall;
            while ((idleWall = System.nanoTime() - idleStart) < wall) {
                java.util.concurrent.locks.LockSupport.parkNanos(wall - idleWall);
            }
            long idleCpu = (os.getProcessCpuTime() - idleCpuBefore) * wall / idleWall;
            Cost cost = new Cost(
                    (processCpu - idleCpu) / 1e6 / SCRAPES,
                    (threads.getCurrentThreadCpuTime() - threadCpuBefore) / 1e6 / SCRAPES,
                    (threads.getCurrentThreadAllocatedBytes() - allocatedBefore) / 1024.0 / SCRAPES,
                    lagSeries(last));
            if (recording != null) {
                recording.stop();
                recording.dump(Path.of(jfr));
                recording.close();
            }
            Arrays.sort(wallNanos);
            System.out.printf(
                    Locale.ROOT,
                    "ScrapeCostIT %s: %d partitions, %d scrapes of %.0f KiB: process CPU less idle %.2f ms/scrape, scraping"
                            + " thread CPU %.2f ms/scrape, allocated by the scraping thread %.0f KiB/scrape, wall p50"
                            + " %.2f ms p99 %.2f ms%n",
                    overrides,
                    PARTITIONS,
                    SCRAPES,
                    bytes / 1024.0 / SCRAPES,
                    cost.processCpuMs(),
                    cost.threadCpuMs(),
                    cost.allocatedKiB(),
                    wallNanos[SCRAPES / 2] / 1e6,
                    wallNanos[SCRAPES * 99 / 100] / 1e6);
            return cost;
        }
    }

    /** Series of the group's offset lag in one scrape: one per partition it committed. */
    private static int lagSeries(HttpResponse r) {
        String text = new String(r.body(), StandardCharsets.UTF_8);
        int n = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith("kafka_consumergroup_group_lag{") && line.contains("group=\"" + GROUP + "\"")) {
                n++;
            }
        }
        return n;
    }
}

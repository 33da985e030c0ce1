package io.varve.bench.scenario;

import io.varve.bench.BenchOptions;
import io.varve.bench.BrokerKind;
import io.varve.bench.Figure;
import io.varve.bench.Measurement;
import io.varve.bench.PerfTools;
import io.varve.bench.RunningBroker;
import io.varve.bench.Scenario;
import io.varve.bench.ScenarioContext;
import io.varve.bench.Topics;
import java.util.List;
import java.util.Locale;

/**
 * (15) What serving Prometheus costs Varve's produce path: scenario 1 (acks=all, 1 KiB records, 6 partitions,
 * linger.ms=5, as fast as it goes) on a fresh broker without anyone fetching {@code /metrics}, and again on a fresh
 * broker while {@link MetricsScraper} fetches it every second, the two in alternating order by round. Varve only:
 * Kafka serves no {@code /metrics} without a JMX exporter agent, so its column says so. The target is at most
 * 2 % less throughput and at most 2 % more broker CPU per GiB with the scraper.
 */
public final class MetricsCost implements Scenario {
    static final long SCRAPE_INTERVAL_MS = 1_000;
    /**
     * Scrapes, back to back, before either run's warm-up. A fresh broker runs its first scrapes interpreted, at about
     * 30 ms of CPU each instead of the 1–5 ms of a compiled one, and the timed phase holds only tens of scrapes: without
     * this, the scenario measured the JIT's warm-up of the scrape path rather than what scraping costs a broker in
     * service. Both runs are primed alike, so the unscraped one carries the same compiled code.
     */
    static final int PRIMING_SCRAPES = 300;
    static final Figure THROUGHPUT_PLAIN = Figure.higher("produce throughput, /metrics not scraped", "MiB/s", null);
    static final Figure THROUGHPUT_SCRAPED =
            Figure.higher("produce throughput, /metrics scraped every 1 s", "MiB/s", null);
    static final Figure CPU_PLAIN = Figure.lower("broker CPU per GiB, not scraped", "CPU s/GiB", null);
    static final Figure CPU_SCRAPED = Figure.lower("broker CPU per GiB, scraped every 1 s", "CPU s/GiB", null);
    static final Figure THROUGHPUT_COST =
            Figure.lower("throughput lost to scraping (target ≤ 2 %)", "%", null);
    static final Figure CPU_COST = Figure.lower("CPU per GiB added by scraping (target ≤ 2 %)", "%", null);
    static final Figure SCRAPE_CPU_SHARE = Figure.lower(
            "broker CPU spent serving the scrapes, measured on the scraping thread (target ≤ 2 %)", "%", null);
    static final Figure SCRAPE_CPU_MS = Figure.lower("broker CPU per scrape, measured on the scraping thread", "ms",
            null);
    static final Figure SCRAPES = Figure.higher("scrapes answered 200 during the timed phase", "scrapes", null);
    static final Figure SCRAPE_SIZE = Figure.lower("mean scrape size", "KiB", null);
    static final Figure SCRAPE_P99 = Figure.lower("p99 scrape time", "ms", null);

    private static final List<Figure> ALL = List.of(THROUGHPUT_PLAIN, THROUGHPUT_SCRAPED, CPU_PLAIN, CPU_SCRAPED,
            THROUGHPUT_COST, CPU_COST, SCRAPE_CPU_SHARE, SCRAPE_CPU_MS, SCRAPES, SCRAPE_SIZE, SCRAPE_P99);

    @Override
    public int number() {
        return 14;
    }

    @Override
    public String title() {
        return "Cost of metrics: scenario 1 with and without a Prometheus scraper (Varve only)";
    }

    @Override
    public String setup(BenchOptions.Sizes sizes) {
        return "scenario 1 (ProducerPerformance --num-records " + sizes.produceRecords() + " --record-size 1024 "
                + "--throughput -1, acks=all linger.ms=" + Producing.LINGER_MS + ") twice per round on fresh brokers, "
                + "each first scraped " + PRIMING_SCRAPES + " times back to back (the scrape path compiled, as in a "
                + "broker in service), then once with GET /metrics every " + SCRAPE_INTERVAL_MS + " ms (text format, one HTTP client "
                + "in the harness) from the warm-up on and for the whole timed phase; the order alternates by round; "
                + "costs are "
                + "(unscraped − scraped) / unscraped for throughput and (scraped − unscraped) / unscraped for CPU "
                + "per GiB, from this round's pair";
    }

    @Override
    public Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception {
        if (kind == BrokerKind.KAFKA) {
            return new Measurement().missing(ALL, "Varve only (Kafka serves no /metrics without a JMX exporter)");
        }
        boolean scrapedFirst = label.matches(".*-r\\d*[02468]-.*");
        Run first = run(context, label + (scrapedFirst ? "-scraped" : "-plain"), scrapedFirst);
        Run second = run(context, label + (scrapedFirst ? "-plain" : "-scraped"), !scrapedFirst);
        Run plain = scrapedFirst ? second : first;
        Run scraped = scrapedFirst ? first : second;
        Measurement m = new Measurement()
                .put(THROUGHPUT_PLAIN, plain.mibPerSec)
                .put(THROUGHPUT_SCRAPED, scraped.mibPerSec)
                .put(CPU_PLAIN, plain.cpuPerGib)
                .put(CPU_SCRAPED, scraped.cpuPerGib)
                .put(THROUGHPUT_COST, 100.0 * (plain.mibPerSec - scraped.mibPerSec) / plain.mibPerSec)
                .put(CPU_COST, 100.0 * (scraped.cpuPerGib - plain.cpuPerGib) / plain.cpuPerGib)
                .put(SCRAPES, scraped.scrapes.ok());
        if (!Double.isNaN(scraped.scrapeCpuSeconds)) {
            m.put(SCRAPE_CPU_SHARE, 100.0 * scraped.scrapeCpuSeconds / scraped.brokerCpuSeconds);
            if (scraped.scrapes.ok() > 0) {
                m.put(SCRAPE_CPU_MS, 1000.0 * scraped.scrapeCpuSeconds / scraped.scrapes.ok());
            }
        }
        if (scraped.scrapes.ok() > 0) {
            m.put(SCRAPE_SIZE, scraped.scrapes.meanBytes() / 1024.0);
            m.put(SCRAPE_P99, scraped.scrapes.p99Ms());
        }
        if (scraped.scrapes.failed() > 0) {
            System.out.printf(Locale.ROOT, "(15) %s: %d scrapes failed: %s%n", label, scraped.scrapes.failed(),
                    scraped.scrapes.lastFailure());
        }
        return m;
    }

    /** {@code scrapeCpuSeconds}: what the broker's scraping threads say they spent during the timed phase, or NaN. */
    private record Run(double mibPerSec, double cpuPerGib, MetricsScraper.Result scrapes, double brokerCpuSeconds,
            double scrapeCpuSeconds) {}

    private static final String SCRAPE_CPU = "varve_metrics_scrape_cpu_seconds_total";

    private static Run run(ScenarioContext context, String label, boolean scrape) throws Exception {
        BenchOptions.Sizes sizes = context.sizes();
        RunningBroker broker = context.freshBroker(BrokerKind.VARVE, label);
        try {
            String topic = "bench-metrics-" + label;
            Topics.create(broker, topic, ProduceThroughput.PARTITIONS);
            int primed = MetricsScraper.prime(broker.httpPort(), context.smoke() ? 10 : PRIMING_SCRAPES);
            if (primed == 0) {
                throw new IllegalStateException("no priming scrape of " + label + " answered 200");
            }
            // Scraped from the warm-up on, as a broker in service is: the first scrape's one-time set-up (the JVM
            // collectors, class loading, the first compilations) is not what a scrape costs, and the warm-up is there
            // to keep such costs out of the timed phase. Only the timed phase's scrapes are counted.
            MetricsScraper warmUpScraper = scrape ? MetricsScraper.start(broker.httpPort(), SCRAPE_INTERVAL_MS) : null;
            try {
                ProduceThroughput.warmUp(context, broker, label, "all");
            } finally {
                if (warmUpScraper != null) {
                    warmUpScraper.stop();
                }
            }
            double scrapeCpuAtStart = scrape ? MetricsScraper.value(broker.httpPort(), SCRAPE_CPU) : Double.NaN;
            MetricsScraper scraper = scrape ? MetricsScraper.start(broker.httpPort(), SCRAPE_INTERVAL_MS) : null;
            double cpuAtStart = broker.cpuSeconds();
            PerfTools.ProducerResult result;
            MetricsScraper.Result scrapes;
            try {
                result = context.tools().produce(label, broker.bootstrap(), topic, sizes.produceRecords(),
                        ScenarioContext.RECORD_SIZE_BYTES, -1, Producing.props("all"));
            } finally {
                scrapes = scraper == null ? MetricsScraper.Result.NONE : scraper.stop();
            }
            double cpu = broker.cpuSeconds() - cpuAtStart;
            // read after the broker's CPU: this scrape's own cost is counted from the next one on, so it is left out
            double scrapeCpu =
                    scrape ? MetricsScraper.value(broker.httpPort(), SCRAPE_CPU) - scrapeCpuAtStart : Double.NaN;
            double gib = result.records() * (double) ScenarioContext.RECORD_SIZE_BYTES / ScenarioContext.GIB;
            return new Run(result.mibPerSec(), cpu / gib, scrapes, cpu, scrapeCpu);
        } finally {
            context.finish(broker);
        }
    }
}

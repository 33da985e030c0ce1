package io.varve.bench.scenario;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What a Prometheus server does to a broker: GET {@code /metrics} at a fixed interval, one request at a time, reading
 * the whole body. Runs on one daemon thread of the harness; counts answers, their sizes and times.
 */
public final class MetricsScraper {
    /** What the scraper saw. */
    record Result(int ok, int failed, double meanBytes, double p99Ms, String lastFailure) {
        static final Result NONE = new Result(0, 0, 0, 0, null);
    }

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final HttpRequest request;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-metrics-scraper");
        t.setDaemon(true);
        return t;
    });
    private final List<Double> timesMs = Collections.synchronizedList(new ArrayList<>());
    private long bytes;
    private int failed;
    private String lastFailure;

    private MetricsScraper(int httpPort) {
        this.request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics"))
                .timeout(Duration.ofSeconds(10))
                .build();
    }

    /** Scrapes every {@code intervalMs}, the first at once. */
    static MetricsScraper start(int httpPort, long intervalMs) {
        if (httpPort <= 0) {
            throw new IllegalArgumentException("the broker has no HTTP listener to scrape");
        }
        MetricsScraper s = new MetricsScraper(httpPort);
        s.timer.scheduleAtFixedRate(s::scrapeOnce, 0, intervalMs, TimeUnit.MILLISECONDS);
        return s;
    }

    /**
     * Scrapes {@code count} times back to back and forgets the answers: the scrape path compiled by the JIT, as it is
     * in a broker that has been scraped for a while. Returns how many answered 200.
     */
    static int prime(int httpPort, int count) {
        MetricsScraper s = new MetricsScraper(httpPort);
        for (int i = 0; i < count; i++) {
            s.scrapeOnce();
        }
        s.timer.shutdown();
        return s.timesMs.size();
    }

    /**
     * One scrape's value of the series {@code name} (for example {@code varve_metrics_scrape_cpu_seconds_total}, or with
     * its labels as the text format writes them: {@code name{topic="t"}}), or NaN when the answer has none.
     */
    public static double value(int httpPort, String name) throws IOException, InterruptedException {
        MetricsScraper s = new MetricsScraper(httpPort);
        s.timer.shutdown();
        HttpResponse<String> r = s.client.send(s.request, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET /metrics answered " + r.statusCode());
        }
        for (String line : r.body().split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1).trim().split("\\s+")[0]);
            }
        }
        return Double.NaN;
    }

    private synchronized void scrapeOnce() {
        long start = System.nanoTime();
        try {
            HttpResponse<byte[]> r = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() == 200) {
                bytes += r.body().length;
                timesMs.add((System.nanoTime() - start) / 1e6);
            } else {
                failed++;
                lastFailure = "HTTP " + r.statusCode();
            }
        } catch (Exception e) {
            failed++;
            lastFailure = e.toString();
        }
    }

    /** Stops scraping (waits for a scrape in progress) and returns what it saw. */
    Result stop() throws InterruptedException {
        timer.shutdown();
        timer.awaitTermination(15, TimeUnit.SECONDS);
        synchronized (this) {
            List<Double> sorted = new ArrayList<>(timesMs);
            Collections.sort(sorted);
            int ok = sorted.size();
            double p99 = ok == 0 ? 0 : sorted.get(Math.min(ok - 1, (int) Math.ceil(ok * 0.99) - 1));
            return new Result(ok, failed, ok == 0 ? 0 : (double) bytes / ok, p99, lastFailure);
        }
    }
}

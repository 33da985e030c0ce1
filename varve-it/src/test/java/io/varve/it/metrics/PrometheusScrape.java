package io.varve.it.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One scrape of {@code /metrics}, parsed by the Prometheus Python client's parser (a real, well-kept parser of the
 * text format and of OpenMetrics; Debian's {@code python3-prometheus-client}), run as a process.
 */
public final class PrometheusScrape {
    /** Debian's interpreter: the package installs into its dist-packages. */
    private static final String PYTHON = "/usr/bin/python3";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    record Sample(String name, Map<String, String> labels, double value) {}

    final String contentType;
    final Set<String> familyNames = new HashSet<>();
    final Map<String, String> familyTypes = new HashMap<>();
    final List<Sample> samples = new ArrayList<>();

    private PrometheusScrape(String contentType) {
        this.contentType = contentType;
    }

    static HttpResponse<String> get(int port, String path, String accept) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10));
        if (accept != null) {
            b.header("Accept", accept);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Scrapes and parses; {@code openMetrics} asks for (and parses as) OpenMetrics. */
    public static PrometheusScrape scrape(int port, boolean openMetrics) throws Exception {
        HttpResponse<String> r =
                get(port, "/metrics", openMetrics ? "application/openmetrics-text; version=1.0.0" : null);
        if (r.statusCode() != 200) {
            throw new AssertionError("/metrics answered " + r.statusCode() + ": " + r.body());
        }
        PrometheusScrape s =
                new PrometheusScrape(r.headers().firstValue("Content-Type").orElse(""));
        JsonNode parsed = parse(r.body(), openMetrics ? "openmetrics" : "text");
        for (JsonNode f : parsed.get("families")) {
            s.familyNames.add(f.get("name").asText());
            s.familyTypes.put(f.get("name").asText(), f.get("type").asText());
        }
        for (JsonNode n : parsed.get("samples")) {
            Map<String, String> labels = new HashMap<>();
            n.get("labels")
                    .fields()
                    .forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
            s.samples.add(
                    new Sample(n.get("name").asText(), labels, n.get("value").asDouble()));
        }
        return s;
    }

    private static JsonNode parse(String body, String format) throws Exception {
        Path script = Files.createTempFile("prometheus_parse", ".py");
        try (InputStream in = PrometheusScrape.class.getResourceAsStream("/metrics/prometheus_parse.py")) {
            Files.copy(in, script, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        try {
            Process p = new ProcessBuilder(PYTHON, script.toString(), format).start();
            p.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError("the Prometheus parser refused the scrape: " + err);
            }
            return JSON.readTree(out);
        } finally {
            Files.deleteIfExists(script);
        }
    }

    /** The one sample named {@code name} whose labels include {@code labels}; fails when there is none. */
    public double value(String name, Map<String, String> labels) {
        for (Sample s : samples) {
            if (s.name.equals(name) && s.labels.entrySet().containsAll(labels.entrySet())) {
                return s.value;
            }
        }
        throw new AssertionError("no sample " + name + labels);
    }

    /** The sum of the samples named {@code name} whose labels include {@code labels} (0 when none). */
    double sum(String name, Map<String, String> labels) {
        double total = 0;
        for (Sample s : samples) {
            if (s.name.equals(name) && s.labels.entrySet().containsAll(labels.entrySet())) {
                total += s.value;
            }
        }
        return total;
    }

    /** Whether a family or a sample has this name. */
    boolean has(String name) {
        if (familyNames.contains(name)) {
            return true;
        }
        for (Sample s : samples) {
            if (s.name.equals(name)) {
                return true;
            }
        }
        return false;
    }
}

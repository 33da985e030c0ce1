package io.varve.broker.security;

import io.varve.security.oauthbearer.JsonWebKeySet;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The current JWK set of one {@code sasl.oauthbearer.jwks.endpoint.url}, read at start and again every {@code
 * sasl.oauthbearer.jwks.endpoint.refresh.ms}; a failed read keeps the last good set and is retried after {@code
 * retry.backoff.ms}, doubling up to {@code retry.backoff.max.ms}. Until a first read succeeds there are no keys, so
 * every token is refused (fail closed). Logs a line when the set's key ids change and when reading starts or stops
 * failing, not per attempt.
 */
final class JwksRefresher implements Supplier<JsonWebKeySet> {
    private static final Logger log = LoggerFactory.getLogger(JwksRefresher.class);
    private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(10);
    /** A JWK set is a few keys; a bigger answer is not one. */
    private static final int MAX_BYTES = 1024 * 1024;

    private final URI url;
    private final OAuthBearerSettings settings;
    private final ScheduledExecutorService scheduler;
    private final HttpClient http;
    private volatile JsonWebKeySet current = JsonWebKeySet.of(List.of());
    private List<String> loadedKeyIds;
    private boolean failing;
    private long backoffMs;
    /** When an early read for an unknown kid may next be asked for (monotonic ms); rate-limits the requests. */
    private final java.util.concurrent.atomic.AtomicLong nextExpediteMs = new java.util.concurrent.atomic.AtomicLong();

    JwksRefresher(OAuthBearerSettings settings, ScheduledExecutorService scheduler) {
        this.url = settings.jwksUrl();
        this.settings = settings;
        this.scheduler = scheduler;
        this.http = url.getScheme().toLowerCase().startsWith("http")
                ? HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build()
                : null;
        this.backoffMs = settings.retryBackoffMs();
    }

    @Override
    public JsonWebKeySet get() {
        return current;
    }

    /**
     * A token named a key id the set does not hold: read the set again soon (in the background, at most once per
     * {@code retry.backoff.max.ms}), as Kafka does when an identity provider rotates its keys.
     */
    void expedite(String keyId) {
        long nowMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
        long allowed = nextExpediteMs.get();
        if (nowMs < allowed || !nextExpediteMs.compareAndSet(allowed, nowMs + settings.retryBackoffMaxMs())) {
            return;
        }
        log.info("A token names key id '{}', which the JWK set of {} does not hold: reading it again", keyId, url);
        if (!scheduler.isShutdown()) {
            scheduler.execute(this::readOnce);
        }
    }

    /** One read outside the schedule: updates the set on success, leaves the schedule as it is. */
    private synchronized void readOnce() {
        try {
            JsonWebKeySet set = JsonWebKeySet.parse(read(), url.toString());
            current = set;
            List<String> ids = set.keys().stream()
                    .map(k -> Objects.toString(k.keyId(), "(no kid)"))
                    .toList();
            if (!ids.equals(loadedKeyIds)) {
                log.info("Loaded the JWK set of {}: {} signing keys {}", url, ids.size(), ids);
            }
            loadedKeyIds = ids;
        } catch (IOException | IllegalArgumentException e) {
            log.warn("Cannot read the JWK set of {} ({}); keeping the current one", url, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reads the set now (on the caller's thread, so the listener starts with keys when the endpoint answers). */
    void start() {
        refresh();
    }

    private synchronized void refresh() {
        long nextMs;
        try {
            JsonWebKeySet set = JsonWebKeySet.parse(read(), url.toString());
            current = set;
            List<String> ids = set.keys().stream()
                    .map(k -> Objects.toString(k.keyId(), "(no kid)"))
                    .toList();
            if (failing || !ids.equals(loadedKeyIds)) {
                log.info("Loaded the JWK set of {}: {} signing keys {}", url, ids.size(), ids);
            }
            loadedKeyIds = ids;
            failing = false;
            backoffMs = settings.retryBackoffMs();
            nextMs = settings.jwksRefreshMs();
        } catch (IOException | IllegalArgumentException e) {
            if (!failing) {
                log.warn(
                        "Cannot read the JWK set of {} ({}); {}, retrying with back-off",
                        url,
                        e.getMessage(),
                        loadedKeyIds == null
                                ? "OAUTHBEARER tokens are refused until it loads"
                                : "keeping the last one");
            }
            failing = true;
            nextMs = backoffMs;
            backoffMs = Math.min(backoffMs * 2, settings.retryBackoffMaxMs());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (!scheduler.isShutdown()) {
            scheduler.schedule(this::refresh, nextMs, TimeUnit.MILLISECONDS);
        }
    }

    private String read() throws IOException, InterruptedException {
        if (http == null) {
            Path path = Path.of(url);
            if (Files.size(path) > MAX_BYTES) {
                throw new IOException("larger than " + MAX_BYTES + " bytes");
            }
            return Files.readString(path, StandardCharsets.UTF_8);
        }
        HttpResponse<byte[]> response = http.send(
                HttpRequest.newBuilder(url)
                        .timeout(HTTP_TIMEOUT)
                        .header("Accept", "application/json")
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() != 200) {
            throw new IOException("HTTP status " + response.statusCode());
        }
        if (response.body().length > MAX_BYTES) {
            throw new IOException("larger than " + MAX_BYTES + " bytes");
        }
        return new String(response.body(), StandardCharsets.UTF_8);
    }
}

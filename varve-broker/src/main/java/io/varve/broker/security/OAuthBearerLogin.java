package io.varve.broker.security;

import io.varve.security.oauthbearer.AccessToken;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The token the broker's own connections to one OAUTHBEARER listener log in with (and log in again with, KIP-368):
 * fetched at start with the client-credentials grant ({@link OAuthBearerLoginSettings}), fetched again before it
 * expires on {@link io.varve.security.oauthbearer.RefreshSchedule}'s terms, a failed fetch retried with back-off while
 * the last good token, if still valid, goes on being used. Owns one daemon thread; HTTP at the edge, the schedule and
 * the token's reading are pure ({@code io.varve.security.oauthbearer}).
 *
 * <p>Logs one line when a token is first obtained, one when fetching starts failing (with the endpoint's status, never
 * the secret or the token), and one when it works again; not one per refresh.
 */
public final class OAuthBearerLogin implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OAuthBearerLogin.class);
    /** A token endpoint's answer is a token and a few fields; anything much bigger is not one. */
    private static final int MAX_BYTES = 256 * 1024;

    private final OAuthBearerLoginSettings settings;
    private final String listenerName;
    private final LongSupplier wallClockMs;
    private final ScheduledExecutorService thread;
    private final HttpClient http;

    private volatile AccessToken current;
    /** Completed by the next fetch's outcome; replaced once completed. */
    private volatile CompletableFuture<AccessToken> next = new CompletableFuture<>();

    private int failures;
    private String lastFailure;

    OAuthBearerLogin(OAuthBearerLoginSettings settings, String listenerName, LongSupplier wallClockMs) {
        this.settings = settings;
        this.listenerName = listenerName;
        this.wallClockMs = wallClockMs;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "varve-oauthbearer-login-" + listenerName.toLowerCase(java.util.Locale.ROOT));
            t.setDaemon(true);
            return t;
        });
        this.http = settings.tokenEndpoint()
                        .getScheme()
                        .toLowerCase(java.util.Locale.ROOT)
                        .startsWith("http")
                ? HttpClient.newBuilder()
                        .connectTimeout(Duration.ofMillis(settings.connectTimeoutMs()))
                        .build()
                : null;
    }

    /** Starts fetching the first token (in the background). */
    void start() {
        thread.execute(this::fetch);
    }

    /** Who logs in, for log lines. */
    public String who() {
        return settings.who();
    }

    /**
     * The token to log in with: the current one while it is valid, else the outcome of the next fetch (a failure
     * carries the reason, without secrets).
     */
    public CompletableFuture<AccessToken> token() {
        // next before current: a fetch sets current before it completes and replaces next, so either the token read
        // here is the new one or the future read here is the one that fetch completes
        CompletableFuture<AccessToken> pending = next;
        AccessToken token = current;
        if (token != null && token.expiresAtMs() > wallClockMs.getAsLong()) {
            return CompletableFuture.completedFuture(token);
        }
        return pending;
    }

    private void fetch() {
        long obtainedAtMs = wallClockMs.getAsLong();
        AccessToken token;
        try {
            token = request();
        } catch (IOException | RuntimeException e) {
            // any failure, so the schedule goes on: a fetch that threw would otherwise end the refreshes
            failed(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (token.expiresAtMs() <= obtainedAtMs) {
            failed("the token it issued has already expired");
            return;
        }
        if (current == null || failures > 0) {
            LOG.info(
                    "Got an OAUTHBEARER token for the connections to listener {} as {} from {}, valid until {}",
                    listenerName,
                    token.principal(),
                    settings.tokenEndpoint(),
                    java.time.Instant.ofEpochMilli(token.expiresAtMs()));
        }
        current = token;
        failures = 0;
        lastFailure = null;
        CompletableFuture<AccessToken> waiting = next;
        next = new CompletableFuture<>();
        waiting.complete(token);
        long at = settings.refresh()
                .refreshAtMs(
                        obtainedAtMs,
                        token.expiresAtMs(),
                        ThreadLocalRandom.current().nextDouble());
        schedule(Math.max(0, at - wallClockMs.getAsLong()));
    }

    private void failed(String why) {
        failures++;
        if (!why.equals(lastFailure)) {
            AccessToken token = current;
            LOG.warn(
                    "Cannot get an OAUTHBEARER token for the connections to listener {} from {} as {}: {} ({};"
                            + " retried with back-off, logged again only if this changes)",
                    listenerName,
                    settings.tokenEndpoint(),
                    settings.who(),
                    why,
                    token != null && token.expiresAtMs() > wallClockMs.getAsLong()
                            ? "the current token stays in use until it expires"
                            : "the node's connections cannot log in meanwhile");
        }
        lastFailure = why;
        CompletableFuture<AccessToken> waiting = next;
        next = new CompletableFuture<>();
        waiting.completeExceptionally(
                new IOException("no OAUTHBEARER token from " + settings.tokenEndpoint() + ": " + why));
        schedule(settings.refresh().retryDelayMs(failures));
    }

    private void schedule(long delayMs) {
        if (!thread.isShutdown()) {
            thread.schedule(this::fetch, delayMs, TimeUnit.MILLISECONDS);
        }
    }

    private AccessToken request() throws IOException, InterruptedException {
        if (http == null) {
            Path file = Path.of(settings.tokenEndpoint());
            if (Files.size(file) > MAX_BYTES) {
                throw new IOException(file + " is larger than " + MAX_BYTES + " bytes");
            }
            return AccessToken.parse(
                    Files.readString(file, StandardCharsets.UTF_8).trim(), settings.principalClaim());
        }
        String form = "grant_type=client_credentials"
                + (settings.scope() == null
                        ? ""
                        : "&scope=" + URLEncoder.encode(settings.scope(), StandardCharsets.UTF_8));
        HttpResponse<byte[]> response = http.send(
                HttpRequest.newBuilder(settings.tokenEndpoint())
                        .timeout(Duration.ofMillis(settings.readTimeoutMs()))
                        .header("Authorization", "Basic " + basicCredentials())
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("Accept", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(form))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() != 200) {
            throw new IOException("HTTP status " + response.statusCode());
        }
        if (response.body().length > MAX_BYTES) {
            throw new IOException("the answer is larger than " + MAX_BYTES + " bytes");
        }
        return AccessToken.fromTokenResponse(
                new String(response.body(), StandardCharsets.UTF_8), settings.principalClaim());
    }

    /** RFC 6749 section 2.3.1; URL-encoded first only with {@code sasl.oauthbearer.header.urlencode=true}. */
    private String basicCredentials() {
        String id = settings.clientId();
        String secret = settings.clientSecret();
        if (settings.urlEncodeCredentials()) {
            id = URLEncoder.encode(id, StandardCharsets.UTF_8);
            secret = URLEncoder.encode(secret, StandardCharsets.UTF_8);
        }
        return Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}

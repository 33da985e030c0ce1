package io.varve.broker.security;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.varve.security.oauthbearer.AccessToken;
import io.varve.security.oauthbearer.RefreshSchedule;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The broker's own OAUTHBEARER login against a token endpoint on loopback: the client-credentials grant as Kafka's
 * login sends it, a refresh before the token expires, and a refused request reported without the secret.
 */
class OAuthBearerLoginTest {
    private static final Base64.Encoder URL = Base64.getUrlEncoder().withoutPadding();

    private final HttpServer server;
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final List<String> forms = new CopyOnWriteArrayList<>();
    private final AtomicInteger issued = new AtomicInteger();
    private volatile int status = 200;
    private volatile long lifetimeSeconds = 3600;
    private OAuthBearerLogin login;

    OAuthBearerLoginTest() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/token", this::token);
        server.start();
    }

    @AfterEach
    void stop() {
        if (login != null) {
            login.close();
        }
        server.stop(0);
    }

    private void token(HttpExchange exchange) throws IOException {
        authorizations.add(exchange.getRequestHeaders().getFirst("Authorization"));
        forms.add(new String(exchange.getRequestBody().readAllBytes(), UTF_8));
        byte[] body;
        if (status == 200) {
            long exp = System.currentTimeMillis() / 1000 + lifetimeSeconds;
            String jwt = URL.encodeToString("{\"alg\":\"RS256\"}".getBytes(UTF_8)) + "."
                    + URL.encodeToString(
                            ("{\"sub\":\"broker\",\"exp\":" + exp + ",\"n\":" + issued.incrementAndGet() + "}")
                                    .getBytes(UTF_8))
                    + ".c2ln";
            body = ("{\"access_token\":\"" + jwt + "\",\"token_type\":\"Bearer\"}").getBytes(UTF_8);
        } else {
            body = "{\"error\":\"invalid_client\"}".getBytes(UTF_8);
        }
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    private OAuthBearerLogin start(String scope) {
        OAuthBearerLoginSettings settings = new OAuthBearerLoginSettings(
                URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/token"),
                "broker",
                "broker-secret",
                scope,
                false,
                "sub",
                new RefreshSchedule(0.5, 0.0, 0, 0, 50, 200),
                2_000,
                2_000);
        login = new OAuthBearerLogin(settings, "SASL_PLAINTEXT", System::currentTimeMillis);
        login.start();
        return login;
    }

    @Test
    void theFirstTokenComesFromTheClientCredentialsGrantAsKafkaSendsIt() throws Exception {
        AccessToken token = start("kafka cluster").token().get(10, TimeUnit.SECONDS);
        assertThat(token.principal()).isEqualTo("broker");
        assertThat(authorizations.get(0))
                .isEqualTo("Basic " + Base64.getEncoder().encodeToString("broker:broker-secret".getBytes(UTF_8)));
        assertThat(forms.get(0)).isEqualTo("grant_type=client_credentials&scope=kafka+cluster");
        // while it is valid, the same token is handed out without asking again
        assertThat(login.token().get(1, TimeUnit.SECONDS)).isEqualTo(token);
        assertThat(issued.get()).isEqualTo(1);
    }

    @Test
    void aShortLivedTokenIsReplacedBeforeItExpires() throws Exception {
        lifetimeSeconds = 2;
        AccessToken first = start(null).token().get(10, TimeUnit.SECONDS);
        assertThat(forms.get(0)).isEqualTo("grant_type=client_credentials");
        await("a second token, fetched at half the first one's lifetime")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> issued.get() >= 2);
        AccessToken second = login.token().get(1, TimeUnit.SECONDS);
        assertThat(second.value()).isNotEqualTo(first.value());
        assertThat(second.expiresAtMs()).isGreaterThanOrEqualTo(first.expiresAtMs());
    }

    @Test
    void aRefusedRequestFailsTheWaitingLoginWithTheStatusAndNotTheSecretAndIsRetried() throws Exception {
        status = 401;
        start(null);
        ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(
                ExecutionException.class, () -> login.token().get(10, TimeUnit.SECONDS));
        assertThat(failure.getCause().getMessage()).contains("HTTP status 401").doesNotContain("broker-secret");
        status = 200;
        await("the retried fetch gets a token")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> login.token().get(1, TimeUnit.SECONDS).principal().equals("broker"));
    }
}

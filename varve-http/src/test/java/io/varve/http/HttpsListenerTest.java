package io.varve.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.SslContextBuilder;
import io.varve.http.metrics.NodeMetrics;
import io.varve.http.view.Readiness;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The listener over real TLS (a keytool-made certificate) with HTTP Basic. */
class HttpsListenerTest {
    private static final String PASSWORD = "test-secret";

    @TempDir
    Path dir;

    private Path keystore() throws Exception {
        Path store = dir.resolve("http.p12");
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-alias",
                        "http",
                        "-keyalg",
                        "EC",
                        "-groupname",
                        "secp256r1",
                        "-dname",
                        "CN=localhost",
                        "-ext",
                        "san=ip:127.0.0.1",
                        "-validity",
                        "2",
                        "-keystore",
                        store.toString(),
                        "-storetype",
                        "PKCS12",
                        "-storepass",
                        PASSWORD)
                .redirectErrorStream(true)
                .start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor()).isZero();
        return store;
    }

    private static KeyStore load(Path store) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return ks;
    }

    @Test
    void httpsServesTheProbesToAnyoneAndMetricsOnlyWithValidBasicCredentials() throws Exception {
        KeyStore keys = load(keystore());
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, PASSWORD.toCharArray());
        HttpSecurity security = new HttpSecurity(
                SslContextBuilder.forServer(kmf).build(),
                Set.of(HttpSecurity.Method.BASIC),
                (user, password) ->
                        user.equals("alice") && password.equals("pw") ? Optional.of("User:alice") : Optional.empty(),
                null);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(keys);
        SSLContext trusting = SSLContext.getInstance("TLS");
        trusting.init(null, tmf.getTrustManagers(), null);
        HttpClient client = HttpClient.newBuilder().sslContext(trusting).build();
        try (HttpListener l = HttpListener.start(
                List.of(new HttpEndpoint("127.0.0.1", 0, true)),
                security,
                new NodeMetrics(),
                () -> new Readiness(true, true, 0))) {
            URI base = URI.create("https://127.0.0.1:" + l.boundPort(0));
            assertThat(client.send(
                                    HttpRequest.newBuilder(base.resolve("/health/live"))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .statusCode())
                    .isEqualTo(200);
            HttpResponse<String> anonymous = client.send(
                    HttpRequest.newBuilder(base.resolve("/metrics")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(anonymous.statusCode()).isEqualTo(401);
            assertThat(anonymous.headers().firstValue("www-authenticate")).isPresent();
            HttpResponse<String> alice = client.send(
                    HttpRequest.newBuilder(base.resolve("/metrics"))
                            .header(
                                    "Authorization",
                                    "Basic "
                                            + Base64.getEncoder()
                                                    .encodeToString("alice:pw".getBytes(StandardCharsets.UTF_8)))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(alice.statusCode()).isEqualTo(200);
            assertThat(alice.body()).contains("jvm_memory_used_bytes");
        }
    }
}

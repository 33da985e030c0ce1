package io.varve.it.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.it.TestBroker;
import io.varve.it.security.TestCertificates;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP listener over real TLS with authentication: {@code https://} with the broker's keystore, HTTP Basic
 * checked against the broker's SCRAM credentials (created at run time through Admin) and its PLAIN users, a client
 * certificate named by the principal mapping rules, the health probes open; the console's ACL check sees the
 * authorizer's ACLs; and a broker with an authorizer refuses to serve HTTP off the loopback interface without
 * authentication.
 */
class HttpsListenerIT {
    private static final String PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule";

    @TempDir
    static Path dir;

    static TestBroker broker;
    static TestCertificates certs;
    static int https;

    @BeforeAll
    static void start() throws Exception {
        certs = TestCertificates.authority(dir.resolve("ca"), "Varve HTTP CA");
        Map<String, String> props = new HashMap<>();
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0");
        props.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512");
        props.put("sasl.jaas.config", PLAIN + " required user_carol=\"carol-secret\";");
        props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        props.put("super.users", "User:ANONYMOUS");
        props.put("varve.http.listeners", "https://127.0.0.1:0");
        props.put("varve.http.authentication", "basic,mtls");
        props.put(
                "varve.http.ssl.keystore.location",
                certs.brokerKeystore("PKCS12").toString());
        props.put("varve.http.ssl.keystore.type", "PKCS12");
        props.put("varve.http.ssl.keystore.password", TestCertificates.PASSWORD);
        props.put(
                "varve.http.ssl.truststore.location", certs.truststore("PKCS12").toString());
        props.put("varve.http.ssl.truststore.type", "PKCS12");
        props.put("varve.http.ssl.truststore.password", TestCertificates.PASSWORD);
        props.put("varve.http.ssl.client.auth", "requested");
        props.put("varve.http.ssl.principal.mapping.rules", "RULE:^CN=([^,]*),O=Varve Test$/$1/L");
        broker = TestBroker.start(dir.resolve("data"), props);
        https = broker.broker().httpPort(0);
        try (Admin admin = broker.admin()) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            "alice", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "alice-secret")))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static HttpClient client(Path clientKeystore) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(certs.truststore("PKCS12"))) {
            trust.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (clientKeystore != null) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(clientKeystore)) {
                keys.load(in, TestCertificates.PASSWORD.toCharArray());
            }
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, TestCertificates.PASSWORD.toCharArray());
        }
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return HttpClient.newBuilder()
                .sslContext(tls)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    private static HttpResponse<String> get(HttpClient client, String scheme, String path, String user, String password)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + https + path))
                .timeout(Duration.ofSeconds(10));
        if (user != null) {
            b.header(
                    "Authorization",
                    "Basic "
                            + Base64.getEncoder()
                                    .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void metricsOverHttpsNeedTheBasicCredentialsOfAScramOrPlainUser() throws Exception {
        HttpClient client = client(null);
        HttpResponse<String> anonymous = get(client, "https", "/metrics", null, null);
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("www-authenticate"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("Basic realm=\"varve\""));
        assertThat(get(client, "https", "/metrics", "alice", "wrong").statusCode())
                .isEqualTo(401);
        assertThat(get(client, "https", "/metrics", "nobody", "alice-secret").statusCode())
                .isEqualTo(401);
        HttpResponse<String> scram = get(client, "https", "/metrics", "alice", "alice-secret");
        assertThat(scram.statusCode()).as("a SCRAM user").isEqualTo(200);
        assertThat(scram.body()).contains("kafka_controller_kafkacontroller_activecontrollercount");
        assertThat(get(client, "https", "/metrics", "carol", "carol-secret").statusCode())
                .as("a PLAIN user of the SASL listener")
                .isEqualTo(200);
        assertThat(get(client, "https", "/console", "carol", "carol-secret").statusCode())
                .isEqualTo(200);
    }

    @Test
    void theHealthProbesNeedNoCredentials() throws Exception {
        assertThat(get(client(null), "https", "/health/live", null, null).statusCode())
                .isEqualTo(200);
    }

    @Test
    void aClientCertificateAuthenticatesWithoutAPassword() throws Exception {
        HttpClient withCertificate = client(certs.clientKeystore("bob", "CN=bob,O=Varve Test"));
        assertThat(get(withCertificate, "https", "/metrics", null, null).statusCode())
                .isEqualTo(200);
    }

    @Test
    void plainHttpIsNotSpokenOnTheHttpsPort() throws Exception {
        HttpClient plain =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThatThrownBy(() -> get(plain, "http", "/health/live", null, null))
                .isInstanceOf(java.io.IOException.class);
        HttpClient untrusting = HttpClient.newBuilder().build(); // the JDK's CAs do not include the test CA
        assertThatThrownBy(() -> get(untrusting, "https", "/health/live", null, null))
                .isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void theConsolesAclCheckIsTheAuthorizersForTheRequestsPrincipal() throws Exception {
        var check = broker.broker().metrics().view().authorization();
        assertThat(check.allowed("User:alice", "127.0.0.1", "CREATE", "TOPIC", "alice-topic"))
                .isFalse();
        assertThat(check.allowed("User:ANONYMOUS", "127.0.0.1", "CREATE", "TOPIC", "alice-topic"))
                .as("a super user")
                .isTrue();
        try (Admin admin = broker.admin()) {
            admin.createAcls(List.of(new AclBinding(
                            new ResourcePattern(ResourceType.TOPIC, "alice-", PatternType.PREFIXED),
                            new AccessControlEntry("User:alice", "*", AclOperation.CREATE, AclPermissionType.ALLOW))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> check.allowed("User:alice", "127.0.0.1", "CREATE", "TOPIC", "alice-topic"));
        assertThat(check.allowed("User:alice", "127.0.0.1", "CREATE", "TOPIC", "bob-topic"))
                .isFalse();
        assertThat(check.allowed("User:alice", "127.0.0.1", "DELETE", "TOPIC", "alice-topic"))
                .isFalse();
    }

    @Test
    void aBrokerWithAnAuthorizerRefusesAnHttpListenerOffLoopbackWithoutAuthentication() {
        Map<String, String> props = Map.of(
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users", "User:ANONYMOUS",
                "varve.http.listeners", "http://0.0.0.0:0");
        assertThatThrownBy(() -> TestBroker.start(dir.resolve("refused"), props))
                .hasStackTraceContaining("varve.http.listeners: http://0.0.0.0:0 is reachable off the loopback"
                        + " interface of a broker with an authorizer, but varve.http.authentication is not set");
    }
}

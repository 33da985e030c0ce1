package io.varve.it.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
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
 * The registry over https with the principals of a SASL_SSL Kafka listener: HTTP Basic against its PLAIN users and
 * the SCRAM credentials of the metadata, Kafka's ACLs on resources {@code subject:<name>} of type TOPIC (DESCRIBE to
 * read, WRITE to register, ALTER_CONFIGS to change a level), 401 / 40101 and 403 / 40301 as Confluent answers. The
 * PLAINTEXT listener is the test's super-user door for creating ACLs and SCRAM users.
 */
class RegistrySecurityIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule";
    private static final String CT = "application/vnd.schemaregistry.v1+json";
    private static final String SCHEMA =
            "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}";

    @TempDir
    static Path dir;

    static TestBroker broker;
    static Admin superAdmin;
    static HttpClient http;
    static String base;

    @BeforeAll
    static void start() throws Exception {
        TestCertificates certs = TestCertificates.authority(dir.resolve("ca"), "Varve Registry CA");
        Map<String, String> props = new HashMap<>();
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0");
        props.put("ssl.keystore.location", certs.brokerKeystore("PKCS12").toString());
        props.put("ssl.keystore.type", "PKCS12");
        props.put("ssl.keystore.password", TestCertificates.PASSWORD);
        props.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256");
        props.put(
                "listener.name.sasl_ssl.plain.sasl.jaas.config",
                PLAIN + " required user_admin=\"admin-secret\" user_alice=\"alice-secret\";");
        props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        props.put("super.users", "User:admin;User:ANONYMOUS");
        props.put("varve.schema.registry.listeners", "https://127.0.0.1:0");
        props.put("varve.schema.registry.security.listener", "SASL_SSL");
        broker = TestBroker.start(dir.resolve("data"), props);
        superAdmin = broker.admin();
        http = HttpClient.newBuilder()
                .sslContext(trusting(certs.truststore("PKCS12")))
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        base = "https://127.0.0.1:" + broker.broker().schemaRegistryPort();
    }

    @AfterAll
    static void stop() {
        if (superAdmin != null) {
            superAdmin.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private static SSLContext trusting(Path truststore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(truststore)) {
            store.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    private record Reply(int status, JsonNode body, HttpResponse<String> raw) {
        int errorCode() {
            return body.path("error_code").asInt();
        }
    }

    private static Reply call(String method, String path, String body, String user, String password) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", CT)
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (user != null) {
            String token = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
            b.header("Authorization", "Basic " + token);
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(r.statusCode(), MAPPER.readTree(r.body()), r);
    }

    private static String schemaBody() {
        return MAPPER.createObjectNode().put("schema", SCHEMA).toString();
    }

    private static void allow(String subject, String principal, AclOperation op) throws Exception {
        superAdmin
                .createAcls(List.of(new AclBinding(
                        new ResourcePattern(ResourceType.TOPIC, "subject:" + subject, PatternType.LITERAL),
                        new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW))))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    private static void awaitAcls(int atLeast) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> superAdmin
                                .describeAcls(AclBindingFilter.ANY)
                                .values()
                                .get(10, TimeUnit.SECONDS)
                                .size()
                        >= atLeast);
    }

    @Test
    void aRequestWithoutOrWithWrongCredentialsGets401With40101() throws Exception {
        Reply none = call("GET", "/subjects", null, null, null);
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.errorCode()).isEqualTo(40101);
        assertThat(none.raw().headers().firstValue("WWW-Authenticate"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
        Reply wrong = call("GET", "/subjects", null, "alice", "not-her-password");
        assertThat(wrong.status()).isEqualTo(401);
        assertThat(wrong.errorCode()).isEqualTo(40101);
    }

    @Test
    void plainHttpOnTheHttpsListenerIsRefused() {
        HttpClient plain = HttpClient.newHttpClient();
        assertThatThrownBy(() -> plain.send(
                        HttpRequest.newBuilder(URI.create(base.replace("https:", "http:") + "/subjects"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(java.io.IOException.class);
    }

    @Test
    void subjectAclsDecideWhoMayRegisterReadAndChangeTheLevel() throws Exception {
        // The super user registers under a subject alice has no ACL on.
        assertThat(call("POST", "/subjects/secret-value/versions", schemaBody(), "admin", "admin-secret")
                        .status())
                .isEqualTo(200);

        Reply refused = call("POST", "/subjects/orders-value/versions", schemaBody(), "alice", "alice-secret");
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.errorCode()).isEqualTo(40301);
        assertThat(refused.body().get("message").asText()).contains("User:alice", "Write", "orders-value");

        allow("orders-value", "User:alice", AclOperation.WRITE);
        awaitAcls(1);
        await("alice's WRITE ACL applied")
                .atMost(Duration.ofSeconds(20))
                .until(() -> call("POST", "/subjects/orders-value/versions", schemaBody(), "alice", "alice-secret")
                                .status()
                        == 200);

        // WRITE implies DESCRIBE (as in Kafka): she reads her subject, and lists only it.
        Reply latest = call("GET", "/subjects/orders-value/versions/latest", null, "alice", "alice-secret");
        assertThat(latest.status()).isEqualTo(200);
        Reply subjects = call("GET", "/subjects", null, "alice", "alice-secret");
        assertThat(subjects.status()).isEqualTo(200);
        assertThat(subjects.body().toString()).isEqualTo("[\"orders-value\"]");
        Reply secret = call("GET", "/subjects/secret-value/versions", null, "alice", "alice-secret");
        assertThat(secret.status()).isEqualTo(403);
        assertThat(secret.errorCode()).isEqualTo(40301);

        Reply level = call("PUT", "/config/orders-value", "{\"compatibility\":\"FULL\"}", "alice", "alice-secret");
        assertThat(level.status()).isEqualTo(403);
        assertThat(level.errorCode()).isEqualTo(40301);
        allow("orders-value", "User:alice", AclOperation.ALTER_CONFIGS);
        await("alice's ALTER_CONFIGS ACL applied")
                .atMost(Duration.ofSeconds(20))
                .until(() ->
                        call("PUT", "/config/orders-value", "{\"compatibility\":\"FULL\"}", "alice", "alice-secret")
                                        .status()
                                == 200);
    }

    @Test
    void aScramUserOfTheMetadataLogsInWithHttpBasic() throws Exception {
        superAdmin
                .alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                        "carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), "carol-secret")))
                .all()
                .get(20, TimeUnit.SECONDS);
        await("carol's credential applied")
                .atMost(Duration.ofSeconds(20))
                .until(() ->
                        call("GET", "/subjects", null, "carol", "carol-secret").status() == 200);
        assertThat(call("GET", "/subjects", null, "carol", "carol-wrong").status())
                .isEqualTo(401);
    }
}

package io.varve.it.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.varve.it.ServerProcess;
import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
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
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three nodes whose registries listen on https with the principals of their SASL_SSL listener and an authorizer: a
 * write sent to a node that does not lead {@code _schemas-0} is forwarded over https with the client's credentials, and
 * the writer's answer (200, or 403 / 40301 for a principal without the subject's ACL) comes back through it; the node
 * that forwarded serves the new schema at once.
 */
class RegistryClusterSecurityIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final String PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule";
    private static final String CT = "application/vnd.schemaregistry.v1+json";
    private static final String SCHEMA =
            "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}";

    private ClusterProcesses cluster;
    private HttpClient http;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void writesForwardedOverHttpsAreAuthorizedByTheWriterWithTheClientsCredentials() throws Exception {
        Path work = ClusterProcesses.workDir("RegistryClusterSecurityIT");
        TestCertificates certs = TestCertificates.authority(work.resolve("ca"), "Varve Registry Cluster CA");
        Map<Integer, Integer> registryPorts = new HashMap<>();
        ClusterProcesses.Builder builder = ClusterProcesses.combined(3)
                .extraListener("SASL_SSL")
                .override("broker.session.timeout.ms", "3000")
                .override("broker.heartbeat.interval.ms", "500")
                .override("varve.http.listeners", "")
                .override(
                        "ssl.keystore.location", certs.brokerKeystore("PKCS12").toString())
                .override("ssl.keystore.type", "PKCS12")
                .override("ssl.keystore.password", TestCertificates.PASSWORD)
                .override("ssl.truststore.location", certs.truststore("PKCS12").toString())
                .override("ssl.truststore.type", "PKCS12")
                .override("ssl.truststore.password", TestCertificates.PASSWORD)
                .override("sasl.enabled.mechanisms", "PLAIN")
                .override(
                        "listener.name.sasl_ssl.plain.sasl.jaas.config",
                        PLAIN + " required user_admin=\"admin-secret\" user_alice=\"alice-secret\""
                                + " user_bob=\"bob-secret\";")
                .override("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                // The nodes' own connections are PLAINTEXT, so ANONYMOUS must be a super user (and is the test's door).
                .override("super.users", "User:admin;User:ANONYMOUS")
                .override("varve.schema.registry.security.listener", "SASL_SSL");
        for (int id = 1; id <= 3; id++) {
            int port = ServerProcess.freePort();
            registryPorts.put(id, port);
            builder.overrideFor(id, "varve.schema.registry.listeners", "https://127.0.0.1:" + port);
        }
        cluster = builder.start(work);
        http = HttpClient.newBuilder()
                .sslContext(trusting(certs.truststore("PKCS12")))
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        cluster.awaitLeader(BOUND);
        ClusterNode first = cluster.nodes().get(0);
        cluster.awaitBrokers(3, BOUND);

        // The first write creates _schemas (through node 1, whoever ends up leading it).
        JsonNode created =
                call(registryPorts.get(1), "POST", "/subjects/admin-value/versions", "admin", "admin-secret", 200);
        assertThat(created.get("id").asInt()).isEqualTo(1);
        Admin admin = cluster.admin(first);
        int writer = admin.describeTopics(List.of("_schemas"))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get("_schemas")
                .partitions()
                .get(0)
                .leader()
                .id();
        int follower = writer == 1 ? 2 : 1;
        admin.createAcls(List.of(new AclBinding(
                        new ResourcePattern(ResourceType.TOPIC, "subject:orders-value", PatternType.LITERAL),
                        new AccessControlEntry("User:alice", "*", AclOperation.WRITE, AclPermissionType.ALLOW))))
                .all()
                .get(30, TimeUnit.SECONDS);

        int followerPort = registryPorts.get(follower);
        await("alice's ACL applied on the writer, through node " + follower)
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> status(followerPort, "POST", "/subjects/orders-value/versions", "alice", "alice-secret")
                        == 200);
        JsonNode latest =
                call(followerPort, "GET", "/subjects/orders-value/versions/latest", "alice", "alice-secret", 200);
        // The same schema as admin-value's: one id for one content, in every subject.
        assertThat(latest.get("id").asInt()).isEqualTo(1);
        assertThat(latest.get("version").asInt()).isEqualTo(1);

        JsonNode denied = call(followerPort, "POST", "/subjects/orders-value/versions", "bob", "bob-secret", 403);
        assertThat(denied.get("error_code").asInt()).isEqualTo(40301);
        JsonNode anonymous = call(followerPort, "POST", "/subjects/orders-value/versions", null, null, 401);
        assertThat(anonymous.get("error_code").asInt()).isEqualTo(40101);
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

    private HttpResponse<String> send(int port, String method, String path, String user, String password)
            throws Exception {
        String body = method.equals("POST")
                ? MAPPER.createObjectNode().put("schema", SCHEMA).toString()
                : null;
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(45))
                .header("Content-Type", CT)
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (user != null) {
            b.header(
                    "Authorization",
                    "Basic "
                            + Base64.getEncoder()
                                    .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private int status(int port, String method, String path, String user, String password) throws Exception {
        return send(port, method, path, user, password).statusCode();
    }

    private JsonNode call(int port, String method, String path, String user, String password, int expected)
            throws Exception {
        HttpResponse<String> r = send(port, method, path, user, password);
        assertThat(r.statusCode()).as("%s %s: %s", method, path, r.body()).isEqualTo(expected);
        return MAPPER.readTree(r.body());
    }
}

package io.varve.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.TestBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console acts as the principal the HTTP listener authenticated (HTTP Basic against the broker's PLAIN users
 * here), so the broker's ACLs decide for each user as they do for that user's Kafka requests: alice, allowed on a
 * topic, reads and changes its configs and browses it; carol, who has no ACL on it, gets 403 for the same; carol,
 * denied CREATE on the cluster, may not create a topic that alice may create.
 */
class ConsolePrincipalIT {
    private static final String PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule";
    private static final String ALICES = "alices";

    @TempDir
    static Path dir;

    static TestBroker broker;
    static int http;
    static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0");
        props.put("sasl.enabled.mechanisms", "PLAIN");
        props.put("sasl.jaas.config", PLAIN + " required user_alice=\"alice-secret\" user_carol=\"carol-secret\";");
        props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        props.put("super.users", "User:ANONYMOUS"); // the harness's admin on PLAINTEXT
        props.put("allow.everyone.if.no.acl.found", "false");
        props.put("varve.http.listeners", "http://127.0.0.1:0");
        props.put("varve.http.authentication", "basic");
        broker = TestBroker.start(dir.resolve("data"), props);
        http = broker.broker().httpPort(0);
        try (Admin admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic(ALICES, 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            admin.createAcls(List.of(
                            new AclBinding(
                                    new ResourcePattern(ResourceType.TOPIC, ALICES, PatternType.LITERAL),
                                    new AccessControlEntry(
                                            "User:alice", "*", AclOperation.ALL, AclPermissionType.ALLOW)),
                            new AclBinding(
                                    new ResourcePattern(ResourceType.TOPIC, "made-by-", PatternType.PREFIXED),
                                    new AccessControlEntry(
                                            "User:alice", "*", AclOperation.CREATE, AclPermissionType.ALLOW))))
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

    private static HttpResponse<String> send(String method, String path, String form, String user) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + path))
                .timeout(Duration.ofSeconds(20))
                .header(
                        "Authorization",
                        "Basic "
                                + Base64.getEncoder()
                                        .encodeToString(
                                                (user + ":" + user + "-secret").getBytes(StandardCharsets.UTF_8)));
        if (form == null) {
            b.GET();
        } else {
            b.header("Content-Type", "application/x-www-form-urlencoded")
                    .method(method, HttpRequest.BodyPublishers.ofString(form));
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void eachUserSeesAndChangesWhatItsAclsAllowAndGets403ForTheRest() throws Exception {
        assertThat(send("GET", "/console/topic/configs?name=" + ALICES, null, "alice")
                        .statusCode())
                .isEqualTo(200);
        assertThat(send("GET", "/console/topic/configs?name=" + ALICES, null, "carol")
                        .statusCode())
                .as("carol has no ACL on the topic")
                .isEqualTo(403);
        assertThat(send("GET", "/console/messages?topic=" + ALICES, null, "alice")
                        .statusCode())
                .isEqualTo(200);
        assertThat(send("GET", "/console/messages?topic=" + ALICES, null, "carol")
                        .statusCode())
                .isEqualTo(403);

        String retention = "name=" + ALICES + "&key=retention.ms&op=set&value=";
        assertThat(send("POST", "/console/topic/configs", retention + "7200000", "carol")
                        .statusCode())
                .isEqualTo(403);
        assertThat(send("POST", "/console/topic/configs", retention + "3600000", "alice")
                        .statusCode())
                .isEqualTo(303);
        try (Admin admin = broker.admin()) {
            ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, ALICES);
            String value = admin.describeConfigs(Set.of(topic))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic)
                    .get("retention.ms")
                    .value();
            assertThat(value).as("alice's change, not carol's").isEqualTo("3600000");
        }
    }

    @Test
    void creatingATopicNeedsCreateOnTheClusterOrTheTopicAsCreateTopicsDoes() throws Exception {
        HttpResponse<String> carol = send("POST", "/console/topics/create", "name=made-by-carol&partitions=1", "carol");
        assertThat(carol.statusCode()).isEqualTo(403);
        assertThat(carol.body()).contains("User:carol may not create topic made-by-carol");
        assertThat(send("POST", "/console/topics/create", "name=made-by-alice&partitions=1", "alice")
                        .statusCode())
                .isEqualTo(303);
        try (Admin admin = broker.admin()) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
                    .contains("made-by-alice")
                    .doesNotContain("made-by-carol");
        }
    }
}

package io.varve.it.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.TestBroker;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
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
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The console on a broker with an authorizer: its requests pass the same ACL check as a Kafka client's (as the
 * anonymous principal while the console binds loopback only), so what the principal may not do gets 403, and the
 * ACL page lists, creates and deletes ACLs through CreateAcls and DeleteAcls.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleAuthorizationIT {
    /** A topic with an ACL for alice alone: the anonymous console may not read or configure it. */
    private static final String GUARDED = "guarded";

    private static final String OPEN = "open";

    @TempDir
    static Path dir;

    private TestBroker broker;
    private ConsoleBrowser console;

    @BeforeAll
    void start() throws Exception {
        broker = TestBroker.start(
                dir.resolve("data"),
                Map.of(
                        "varve.http.listeners", "http://127.0.0.1:0",
                        "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                        "allow.everyone.if.no.acl.found", "true"));
        try (var admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic(GUARDED, 1, (short) 1), new NewTopic(OPEN, 1, (short) 1)))
                    .all()
                    .get();
            admin.createAcls(List.of(new AclBinding(
                            new ResourcePattern(ResourceType.TOPIC, GUARDED, PatternType.LITERAL),
                            new AccessControlEntry("User:alice", "*", AclOperation.ALL, AclPermissionType.ALLOW))))
                    .all()
                    .get();
        }
        console = new ConsoleBrowser("http://127.0.0.1:" + broker.broker().httpPort(0));
    }

    @AfterAll
    void stop() {
        if (console != null) {
            console.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void whatTheConsolesPrincipalMayNotDoGets403AsAKafkaClientWouldBeRefused() throws Exception {
        HttpResponse<String> alter =
                console.post("/console/topic/configs", "name=" + GUARDED + "&key=retention.ms&op=set&value=1000");
        assertThat(alter.statusCode()).isEqualTo(403);
        assertThat(alter.body()).contains("AUTHORIZATION_FAILED");
        assertThat(console.get("/console/topic/configs?name=" + GUARDED).statusCode())
                .isEqualTo(403);
        assertThat(console.get("/console/messages?topic=" + GUARDED).statusCode())
                .isEqualTo(403);
        assertThat(console.post("/console/group/reset", "group=g&topic=" + GUARDED + "&to=earliest")
                        .statusCode())
                .isEqualTo(403);
        assertThat(console.post("/console/topic/configs", "name=" + OPEN + "&key=retention.ms&op=set&value=1000")
                        .statusCode())
                .as("a topic without ACLs, with allow.everyone.if.no.acl.found")
                .isEqualTo(303);
    }

    @Test
    void anAclCreatedAndDeletedInTheBrowserIsWhatDescribeAclsAnswers() throws Exception {
        console.visit("/console/security", "User:alice", "security-acls");
        var driver = console.driver;
        console.select("resourceType", "GROUP");
        driver.findElement(By.cssSelector("#create-acl input[name=resourceName]"))
                .sendKeys("made-in-console");
        driver.findElement(By.cssSelector("#create-acl input[name=principal]")).sendKeys("User:bob");
        console.select("operation", "READ");
        driver.findElement(By.cssSelector("#create-acl button")).click();
        console.waitFor("User:bob");
        console.check("security-acl-created");
        AclBindingFilter bobs = new AclBindingFilter(
                new org.apache.kafka.common.resource.ResourcePatternFilter(ResourceType.ANY, null, PatternType.ANY),
                new org.apache.kafka.common.acl.AccessControlEntryFilter(
                        "User:bob", null, AclOperation.ANY, AclPermissionType.ANY));
        try (var admin = broker.admin()) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> admin.describeAcls(bobs).values().get().size() == 1);
            AclBinding bob = admin.describeAcls(bobs).values().get().iterator().next();
            assertThat(bob.pattern())
                    .isEqualTo(new ResourcePattern(ResourceType.GROUP, "made-in-console", PatternType.LITERAL));
            assertThat(bob.entry().operation()).isEqualTo(AclOperation.READ);
            driver.findElement(By.xpath("//tr[td[text()='User:bob']]//button[@class='delete']"))
                    .click();
            driver.switchTo().alert().accept();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> admin.describeAcls(bobs).values().get().isEmpty());
        }
        HttpResponse<String> bad = console.post(
                "/console/security/acls/create", "resourceType=TABLE&resourceName=x&principal=User:bob&operation=READ");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("Unknown resource type");
    }
}

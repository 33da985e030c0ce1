package io.varve.it.security;

import static io.varve.it.security.SecurityClients.PLAIN_MODULE;
import static io.varve.it.security.SecurityClients.listener;
import static io.varve.it.security.SecurityClients.plain;
import static io.varve.it.security.SecurityClients.trusting;
import static io.varve.it.security.SecurityClients.withClientCertificate;
import static io.varve.it.security.SecurityClients.writeProperties;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.it.TestBroker;
import io.varve.it.ToolRun;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ACLs enforced by Varve's authorizer (authorizer.class.name=Kafka's StandardAuthorizer) for SASL/PLAIN users: who may
 * write, read, describe, join which group, use which transactional id and create topics, with Kafka's exact errors;
 * super users; DENY over ALLOW; prefixed ACLs; Kafka's kafka-acls tool. The PLAINTEXT listener is the test's own
 * super-user door (User:ANONYMOUS is a super user) for setting things up.
 */
class AclIT {
    @TempDir
    static Path dir;

    static TestBroker broker;
    static Admin superAdmin;
    static TestCertificates certs;

    @BeforeAll
    static void start() throws Exception {
        certs = TestCertificates.authority(dir.resolve("ca"), "Varve ACL CA");
        Map<String, String> props = new HashMap<>();
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0");
        props.put("ssl.keystore.location", certs.brokerKeystore("PKCS12").toString());
        props.put("ssl.keystore.type", "PKCS12");
        props.put("ssl.keystore.password", TestCertificates.PASSWORD);
        props.put("ssl.truststore.location", certs.truststore("PKCS12").toString());
        props.put("ssl.truststore.type", "PKCS12");
        props.put("ssl.truststore.password", TestCertificates.PASSWORD);
        props.put("ssl.client.auth", "required");
        props.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]*),O=Varve Test$/$1/L");
        props.put("sasl.enabled.mechanisms", "PLAIN");
        props.put(
                "sasl.jaas.config",
                PLAIN_MODULE + " required user_admin=\"admin-secret\" user_alice=\"alice-secret\""
                        + " user_bob=\"bob-secret\" user_carol=\"carol-secret\";");
        props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        props.put("super.users", "User:admin;User:ANONYMOUS");
        props.put("group.initial.rebalance.delay.ms", "0");
        broker = TestBroker.start(dir.resolve("data"), props);
        superAdmin = broker.admin();
        superAdmin
                .createTopics(List.of(
                        new NewTopic("orders-eu", 1, (short) 1),
                        new NewTopic("shared", 1, (short) 1),
                        new NewTopic("private", 1, (short) 1)))
                .all()
                .get(30, TimeUnit.SECONDS);
        allow(topic("orders-", PatternType.PREFIXED), "User:alice", AclOperation.WRITE);
        allow(topic("orders-", PatternType.PREFIXED), "User:alice", AclOperation.READ);
        allow(new ResourcePattern(ResourceType.GROUP, "alice-", PatternType.PREFIXED), "User:alice", AclOperation.READ);
        allow(topic("shared", PatternType.LITERAL), "User:*", AclOperation.READ);
        allow(topic("shared", PatternType.LITERAL), "User:*", AclOperation.WRITE);
        allow(new ResourcePattern(ResourceType.GROUP, "*", PatternType.LITERAL), "User:bob", AclOperation.READ);
        superAdmin
                .createAcls(List.of(new AclBinding(
                        topic("shared", PatternType.LITERAL),
                        new AccessControlEntry("User:bob", "*", AclOperation.READ, AclPermissionType.DENY))))
                .all()
                .get(30, TimeUnit.SECONDS);
        awaitAcls(7);
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

    private static ResourcePattern topic(String name, PatternType type) {
        return new ResourcePattern(ResourceType.TOPIC, name, type);
    }

    private static void allow(ResourcePattern pattern, String principal, AclOperation op) throws Exception {
        superAdmin
                .createAcls(List.of(
                        new AclBinding(pattern, new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW))))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    /** The broker's image (what the authorizer reads, and DescribeAcls answers from) holds {@code count} ACLs. */
    private static void awaitAcls(int count) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> superAdmin
                                .describeAcls(AclBindingFilter.ANY)
                                .values()
                                .get(10, TimeUnit.SECONDS)
                                .size()
                        == count);
    }

    private static Map<String, Object> user(String name) {
        Map<String, Object> c = plain(broker.bootstrap("SASL_PLAINTEXT"), "SASL_PLAINTEXT", name, name + "-secret");
        c.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        return c;
    }

    private static Admin admin(String name) {
        return SecurityClients.admin(user(name));
    }

    private static void produce(String user, String topic) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(user(user))) {
            producer.send(new ProducerRecord<>(topic, "v".getBytes(UTF_8))).get(20, TimeUnit.SECONDS);
        }
    }

    private static List<ConsumerRecord<byte[], byte[]>> consume(String user, String topic, String group) {
        Map<String, Object> c = new HashMap<>(user(user));
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(c)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (records.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    @Test
    void aPrefixedAllowLetsAliceWriteAndReadHerTopicsWithHerGroups() throws Exception {
        produce("alice", "orders-eu");
        assertThat(consume("alice", "orders-eu", "alice-orders")).isNotEmpty();
    }

    private static Map<String, Object> certificate(String name, String subject) throws Exception {
        Map<String, Object> c = withClientCertificate(
                trusting(listener(broker.bootstrap("SSL"), "SSL"), certs, "PKCS12"),
                certs.clientKeystore(name, subject));
        c.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        return c;
    }

    @Test
    void theClientCertificatesMappedSubjectIsThePrincipalAclsName() throws Exception {
        // CN=Alice,O=Varve Test maps to User:alice, whose prefixed ALLOW covers orders-eu
        try (KafkaProducer<byte[], byte[]> producer =
                broker.producer(certificate("alice-cert", "CN=Alice,O=Varve Test"))) {
            producer.send(new ProducerRecord<>("orders-eu", "tls".getBytes(UTF_8)))
                    .get(20, TimeUnit.SECONDS);
        }
        try (KafkaProducer<byte[], byte[]> producer =
                broker.producer(certificate("mallory-cert", "CN=Mallory,O=Varve Test"))) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("orders-eu", "tls".getBytes(UTF_8)))
                            .get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void aTopicWithoutAnAllowIsRefusedWithTopicAuthorizationFailed() {
        assertThatThrownBy(() -> produce("alice", "private")).hasCauseInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> produce("bob", "orders-eu")).hasCauseInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void aGroupWithoutAnAllowIsRefusedWithGroupAuthorizationFailed() {
        assertThatThrownBy(() -> consume("alice", "orders-eu", "someone-elses-group"))
                .isInstanceOf(GroupAuthorizationException.class);
    }

    @Test
    void denyWinsOverAnAllowForEveryone() throws Exception {
        produce("bob", "shared");
        assertThat(consume("alice", "shared", "alice-shared")).isNotEmpty();
        assertThatThrownBy(() -> consume("bob", "shared", "bob-shared"))
                .isInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void metadataListsOnlyTheTopicsAPrincipalMayDescribe() throws Exception {
        try (Admin alice = admin("alice");
                Admin carol = admin("carol")) {
            assertThat(alice.listTopics().names().get(20, TimeUnit.SECONDS))
                    .containsExactlyInAnyOrder("orders-eu", "shared");
            assertThat(carol.listTopics().names().get(20, TimeUnit.SECONDS)).containsExactly("shared");
        }
    }

    @Test
    void creatingTopicsNeedsCreateAndClusterApisNeedTheClusterResource() throws Exception {
        try (Admin carol = admin("carol")) {
            assertThatThrownBy(() -> carol.createTopics(List.of(new NewTopic("carol-topic", 1, (short) 1)))
                            .all()
                            .get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            assertThatThrownBy(() ->
                            carol.describeAcls(AclBindingFilter.ANY).values().get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
        }
        try (Admin admin = admin("admin")) {
            admin.createTopics(List.of(new NewTopic("admin-topic", 1, (short) 1)))
                    .all()
                    .get(20, TimeUnit.SECONDS);
            assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get(20, TimeUnit.SECONDS))
                    .as("a super user")
                    .isNotEmpty();
        }
    }

    @Test
    void aTransactionalIdWithoutWriteIsRefused() {
        Map<String, Object> c = new HashMap<>(user("alice"));
        c.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "alice-txn");
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(c)) {
            assertThatThrownBy(producer::initTransactions).isInstanceOf(TransactionalIdAuthorizationException.class);
        }
    }

    @Test
    void kafkaAclsAddsListsAndRemovesAcls() throws Exception {
        String bootstrap = broker.bootstrap("SASL_PLAINTEXT");
        Path commandConfig = writeProperties(
                dir.resolve("admin.properties"), plain(bootstrap, "SASL_PLAINTEXT", "admin", "admin-secret"));
        String[] common = {"--bootstrap-server", bootstrap, "--command-config", commandConfig.toString()};
        ToolRun add =
                acls(common, "--add", "--allow-principal", "User:dave", "--operation", "Read", "--topic", "dave-topic");
        assertThat(add.exitCode()).as(add.output()).isZero();
        ToolRun list = acls(common, "--list", "--topic", "dave-topic");
        assertThat(list.exitCode()).as(list.output()).isZero();
        assertThat(list.output()).contains("principal=User:dave").contains("operation=READ");
        ToolRun remove = acls(
                common,
                "--remove",
                "--force",
                "--allow-principal",
                "User:dave",
                "--operation",
                "Read",
                "--topic",
                "dave-topic");
        assertThat(remove.exitCode()).as(remove.output()).isZero();
        Collection<AclBinding> left = superAdmin
                .describeAcls(new AclBindingFilter(
                        new ResourcePatternFilter(ResourceType.TOPIC, "dave-topic", PatternType.LITERAL),
                        AccessControlEntryFilter.ANY))
                .values()
                .get(20, TimeUnit.SECONDS);
        assertThat(left).isEmpty();
    }

    private static ToolRun acls(String[] common, String... args) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of(common));
        all.addAll(List.of(args));
        return ToolRun.run(dir, Duration.ofSeconds(60), "org.apache.kafka.tools.AclCommand", all);
    }
}

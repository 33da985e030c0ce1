package io.varve.it.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.TestBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The console in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, driven by
 * Selenium): each page loads without console errors and shows what the broker holds; screenshots go to {@code
 * target/console-screenshots/} as artifacts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleIT {
    private static final String TOPIC = "console-it";
    private static final String GROUP = "console-it-group";
    /** One partition: ten JSON values with headers at one-second steps from {@link #T0_MS}, then a huge value. */
    private static final String TIMED = "console-it-timed";

    /** An hour ago: recent enough for the default retention. */
    private static final long T0_MS = System.currentTimeMillis() - 3_600_000L;

    private static final int HUGE_BYTES = 200_000;

    @TempDir
    static Path dir;

    private TestBroker broker;
    private ConsoleBrowser console;
    private ChromeDriver browser;
    private String base;

    @BeforeAll
    void start() throws Exception {
        broker = TestBroker.start(
                dir.resolve("data"),
                Map.of(
                        "varve.http.listeners", "http://127.0.0.1:0",
                        "varve.schema.registry.listeners", "http://127.0.0.1:0"));
        base = "http://127.0.0.1:" + broker.broker().httpPort(0);
        try (var admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all().get();
        }
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of())) {
            for (int i = 0; i < 60; i++) {
                producer.send(new ProducerRecord<>(TOPIC, i % 3, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        try (var admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic(TIMED, 1, (short) 1))).all().get();
        }
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of())) {
            for (int i = 0; i < 10; i++) {
                String json = "{\"n\":" + i + ",\"tags\":[\"a\",\"b\"]}";
                producer.send(new ProducerRecord<>(
                        TIMED,
                        0,
                        T0_MS + i * 1000L,
                        ("key-" + i).getBytes(StandardCharsets.UTF_8),
                        json.getBytes(StandardCharsets.UTF_8),
                        List.of(new RecordHeader("source", ("it-" + (i % 2)).getBytes(StandardCharsets.UTF_8)))));
            }
            producer.send(new ProducerRecord<>(
                    TIMED,
                    0,
                    T0_MS + 10_000L,
                    "huge".getBytes(StandardCharsets.UTF_8),
                    "x".repeat(HUGE_BYTES).getBytes(StandardCharsets.UTF_8)));
            producer.flush();
        }
        try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, GROUP))) {
            consumer.commitSync(Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(5)));
        }
        console = new ConsoleBrowser(base);
        browser = console.driver;
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

    private void visit(String path, String expected, String screenshot) throws Exception {
        console.visit(path, expected, screenshot);
    }

    @Test
    void theOverviewShowsTheNodeAndTheCluster() throws Exception {
        visit("/console", "Cluster id", "overview");
        assertThat(browser.findElement(By.tagName("main")).getText())
                .contains("this node")
                .contains("Topics");
    }

    @Test
    void theTopicsPageListsTopicsWithSizesAndLinksToEachTopicsPartitions() throws Exception {
        visit("/console/topics", TOPIC, "topics");
        browser.findElement(By.linkText(TOPIC)).click();
        await().atMost(Duration.ofSeconds(20))
                .ignoreExceptions()
                .until(() -> browser.findElement(By.tagName("h1")).getText().contains("Topic " + TOPIC));
        assertThat(browser.findElements(By.cssSelector("tbody tr"))).hasSize(3);
        visit("/console/topic?name=" + TOPIC, "High watermark", "topic");
    }

    @Test
    void aTopicCreatedInTheBrowserExistsForClientsAndOneDeletedThereIsGone() throws Exception {
        visit("/console/topics", TOPIC, "topics-before-create");
        browser.findElement(By.name("name")).sendKeys("made-in-console");
        browser.findElement(By.name("partitions")).sendKeys("2");
        browser.findElement(By.cssSelector("#create button")).click();
        try (var admin = broker.admin()) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> admin.listTopics().names().get().contains("made-in-console"));
            assertThat(admin.describeTopics(List.of("made-in-console"))
                            .allTopicNames()
                            .get()
                            .get("made-in-console")
                            .partitions())
                    .hasSize(2);
            visit("/console/topics", "made-in-console", "topics-after-create");
            browser.findElement(By.xpath("//tr[td/a[text()='made-in-console']]//button[@class='delete']"))
                    .click();
            browser.switchTo().alert().accept();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> !admin.listTopics().names().get().contains("made-in-console"));
        }
    }

    @Test
    void theGroupsPageShowsLagPerPartitionAndDrawsTheLagChart() throws Exception {
        visit("/console/groups", GROUP, "groups");
        String text = browser.findElement(By.tagName("main")).getText();
        assertThat(text).contains("Committed").contains(TOPIC);
        assertThat(browser.findElements(By.cssSelector(".chart .uplot")))
                .as("a uPlot chart per group")
                .isNotEmpty();
    }

    @Test
    void badParametersGet400AndUnknownConsolePathsA404() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> noName = client.send(
                HttpRequest.newBuilder(URI.create(base + "/console/topic")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(noName.statusCode()).isEqualTo(400);
        assertThat(noName.body()).contains("name parameter is required");
        HttpResponse<String> foreignPost = client.send(
                HttpRequest.newBuilder(URI.create(base + "/console/topics/delete"))
                        .header("Origin", "http://evil.example")
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString("name=" + TOPIC))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(foreignPost.statusCode())
                .as("a form posted from another site")
                .isEqualTo(403);
        HttpResponse<String> badPartitions = client.send(
                HttpRequest.newBuilder(URI.create(base + "/console/topics/create"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString("name=x&partitions=many"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(badPartitions.statusCode()).isEqualTo(400);
        assertThat(badPartitions.body()).contains("Partitions must be a number");
        HttpResponse<String> asset = client.send(
                HttpRequest.newBuilder(URI.create(base + "/console/assets/../../etc/passwd"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(asset.statusCode()).isEqualTo(404);
    }

    private String text() {
        return console.text();
    }

    private HttpResponse<String> post(String path, String form) throws Exception {
        return console.post(path, form);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return console.get(path);
    }

    @Test
    void aConfigEditedInTheBrowserIsWhatDescribeConfigsAnswersAndABadValueGets400WithTheReason() throws Exception {
        visit("/console/topic?name=" + TOPIC, "High watermark", "topic-links");
        browser.findElement(By.id("configs")).click();
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> text().contains("retention.ms"));
        var row = browser.findElement(By.cssSelector("tr[data-key='retention.ms']"));
        var value = row.findElement(By.name("value"));
        value.clear();
        value.sendKeys("3600000");
        row.findElement(By.cssSelector("button.set")).click();
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> browser.findElement(
                        By.cssSelector("tr[data-key='retention.ms'] td.value"))
                .getText()
                .equals("3600000"));
        visit("/console/topic/configs?name=" + TOPIC, "DYNAMIC_TOPIC_CONFIG", "topic-configs-edited");
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
        try (var admin = broker.admin()) {
            var entry = admin.describeConfigs(List.of(resource))
                    .all()
                    .get()
                    .get(resource)
                    .get("retention.ms");
            assertThat(entry.value()).isEqualTo("3600000");
            assertThat(entry.source())
                    .isEqualTo(org.apache.kafka.clients.admin.ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        }
        HttpResponse<String> bad =
                post("/console/topic/configs", "name=" + TOPIC + "&key=retention.ms&op=set&value=soon");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("INVALID_CONFIG").contains("retention.ms");
        HttpResponse<String> unknown =
                post("/console/topic/configs", "name=" + TOPIC + "&key=no.such.key&op=set&value=1");
        assertThat(unknown.statusCode()).isEqualTo(400);
        // back to the default, through the Use default button
        browser.findElement(By.cssSelector("tr[data-key='retention.ms'] button.reset"))
                .click();
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> !browser.findElement(
                        By.cssSelector("tr[data-key='retention.ms']"))
                .getText()
                .contains("DYNAMIC_TOPIC_CONFIG"));
        assertThat(get("/console/topic/configs?name=no-such-topic").statusCode())
                .isEqualTo(404);
    }

    @Test
    void theBrowserReadsMessagesFromAnOffsetWithPartitionOffsetAndValue() throws Exception {
        // partition 0 holds v0, v3, v6…: offset 5 is v15
        visit(
                "/console/messages?topic=" + TOPIC + "&partition=0&from=offset&at=5&limit=4",
                "v15",
                "messages-by-offset");
        List<String> offsets = browser.findElements(By.cssSelector("#messages tbody tr td:nth-child(2)")).stream()
                .map(e -> e.getText())
                .toList();
        assertThat(offsets).containsExactly("5", "6", "7", "8");
        assertThat(text()).contains("v24").doesNotContain("v12").doesNotContain("v27");
        browser.findElement(By.cssSelector("#partitions a.next")).click();
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> browser.findElement(
                        By.cssSelector("#messages tbody tr td:nth-child(2)"))
                .getText()
                .equals("9"));
    }

    @Test
    void theBrowserReadsFromATimestampEnteredInTheFormAndPrettyPrintsJsonWithHeaders() throws Exception {
        visit("/console/messages", "Offset or time", "messages-form");
        browser.findElement(By.name("topic")).sendKeys(TIMED);
        console.select("from", "timestamp");
        browser.findElement(By.name("at"))
                .sendKeys(java.time.Instant.ofEpochMilli(T0_MS + 5000).toString());
        browser.findElement(By.name("limit")).clear();
        browser.findElement(By.name("limit")).sendKeys("3");
        browser.findElement(By.cssSelector("#browse button")).click();
        console.waitFor("key-5");
        console.check("messages-by-timestamp");
        assertThat(text())
                .contains("key-6")
                .contains("key-7")
                .doesNotContain("key-4")
                .doesNotContain("key-8");
        String json = browser.findElement(By.cssSelector("#messages pre.json")).getText();
        assertThat(json).as("the JSON value, indented").contains("\"n\": 5,\n  \"tags\": [");
        assertThat(text()).contains("source").contains("it-1");
        assertThat(text()).contains(java.time.Instant.ofEpochMilli(T0_MS + 5000).toString());
        // a header filter keeps only the matching messages
        visit(
                "/console/messages?topic=" + TIMED + "&from=offset&at=0&limit=10&header=source%3Dit-0",
                "key-0",
                "messages-filtered");
        assertThat(browser.findElements(By.cssSelector("#messages tbody tr td:nth-child(4)")).stream()
                        .map(e -> e.getText())
                        .toList())
                .containsExactly("key-0", "key-2", "key-4", "key-6", "key-8");
        assertThat(text()).contains("5 of 10 messages read match");
    }

    @Test
    void aHugeValueIsCutWithAVisibleMarker() throws Exception {
        visit("/console/messages?topic=" + TIMED + "&from=end&limit=1", "huge", "messages-huge");
        assertThat(browser.findElement(By.cssSelector(".marker")).getText())
                .contains("truncated")
                .contains(String.format(java.util.Locale.ROOT, "%,d", HUGE_BYTES));
        assertThat(browser.getPageSource().length()).isLessThan(HUGE_BYTES / 4);
    }

    @Test
    void badBrowserParametersGet400() throws Exception {
        HttpResponse<String> badOffset = get("/console/messages?topic=" + TOPIC + "&from=offset&at=minus");
        assertThat(badOffset.statusCode()).isEqualTo(400);
        assertThat(badOffset.body()).contains("offset must be a number");
        assertThat(get("/console/messages?topic=" + TOPIC + "&from=yesterday").statusCode())
                .isEqualTo(400);
        assertThat(get("/console/messages?topic=" + TOPIC + "&from=timestamp&at=noon")
                        .statusCode())
                .isEqualTo(400);
        assertThat(get("/console/messages?topic=" + TOPIC + "&limit=100000").statusCode())
                .isEqualTo(400);
        assertThat(get("/console/messages?topic=no-such-topic").statusCode()).isEqualTo(404);
    }

    @Test
    void anEmptyGroupsOffsetsAreResetInTheBrowserAndAnActiveGroupIsRefused() throws Exception {
        String group = "console-reset-group";
        try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, group))) {
            consumer.commitSync(Map.of(
                    new TopicPartition(TOPIC, 0), new OffsetAndMetadata(3),
                    new TopicPartition(TOPIC, 1), new OffsetAndMetadata(3),
                    new TopicPartition(TOPIC, 2), new OffsetAndMetadata(3)));
        }
        visit("/console/groups", group, "groups-before-reset");
        browser.findElement(By.xpath("//h2[contains(., '" + group + "')]//a[@class='reset']"))
                .click();
        console.waitFor("Reset offsets of");
        console.check("reset-form");
        browser.findElement(By.name("topic")).sendKeys(TOPIC);
        console.select("to", "latest");
        browser.findElement(By.cssSelector("#reset button")).click();
        console.waitFor("were reset");
        console.check("reset-done");
        try (var admin = broker.admin()) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get();
            assertThat(committed.values()).extracting(OffsetAndMetadata::offset).containsOnly(20L);
        }
        HttpResponse<String> toTime = post(
                "/console/group/reset",
                "group=" + group + "&topic=" + TOPIC + "&to=timestamp&at=" + java.time.Instant.EPOCH);
        assertThat(toTime.statusCode()).isEqualTo(200);
        try (var admin = broker.admin()) {
            assertThat(admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata()
                            .get()
                            .values())
                    .extracting(OffsetAndMetadata::offset)
                    .as("a time before every record: the earliest offsets")
                    .containsOnly(0L);
        }
        try (KafkaConsumer<byte[], byte[]> member = broker.consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, group))) {
            member.subscribe(List.of(TOPIC));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                member.poll(Duration.ofMillis(100));
                return !member.assignment().isEmpty();
            });
            HttpResponse<String> refused =
                    post("/console/group/reset", "group=" + group + "&topic=" + TOPIC + "&to=offset&at=7");
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(refused.body())
                    .contains("Assignments can only be reset if the group")
                    .contains("is inactive, but the current state is Stable");
        }
        assertThat(post("/console/group/reset", "group=" + group + "&topic=" + TOPIC + "&to=offset&at=x")
                        .statusCode())
                .isEqualTo(400);
    }

    @Test
    void theSecurityPageSaysWhyAclsAreUnavailableWithoutAnAuthorizerAndListsScramUsers() throws Exception {
        visit("/console/security", "SCRAM users", "security-no-authorizer");
        assertThat(text()).contains("SECURITY_DISABLED").contains("No client quotas");
    }

    @Test
    void theThroughputPageChartsBytesInAndOutOfTheBrokerAndEachTopic() throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of())) {
            producer.send(new ProducerRecord<>(TOPIC, 0, null, "more".getBytes(StandardCharsets.UTF_8)));
            producer.flush();
        }
        // the first rate comes one sample period (15 s) after the first sample
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(3))
                .ignoreExceptions()
                .until(() -> {
                    browser.get(base + "/console/throughput");
                    return !browser.findElements(By.cssSelector(".chart .uplot"))
                            .isEmpty();
                });
        visit("/console/throughput", "Broker", "throughput");
        assertThat(browser.findElements(By.cssSelector(".chart .uplot")).size())
                .as("the broker's chart and one per topic")
                .isGreaterThanOrEqualTo(2);
    }

    /** Registers {@code schema} under {@code topic}-value in the in-box registry; its id. */
    private int register(String topic, String type, String schema) throws Exception {
        String body = "{" + (type == null ? "" : "\"schemaType\":\"" + type + "\",") + "\"schema\":\""
                + schema.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"}";
        HttpResponse<String> registered = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + broker.broker().schemaRegistryPort() + "/subjects/"
                                                + topic + "-value/versions"))
                                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(registered.statusCode()).as(registered.body()).isEqualTo(200);
        return Integer.parseInt(registered.body().replaceAll("\\D", ""));
    }

    private void produce(String topic, byte[] value) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of())) {
            producer.send(new ProducerRecord<>(topic, value)).get();
        }
    }

    @Test
    void anAvroValueWithTheRegistrysHeaderIsShownDecodedThroughTheInBoxRegistry() throws Exception {
        String topic = "console-it-avro";
        int id = register(
                topic,
                null,
                "{\"type\":\"record\",\"name\":\"User\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"},"
                        + "{\"name\":\"n\",\"type\":\"int\"}]}");
        // magic byte 0, the schema id, then Avro's binary encoding of {"name": "alice", "n": 7}
        java.nio.ByteBuffer value = java.nio.ByteBuffer.allocate(5 + 7);
        value.put((byte) 0)
                .putInt(id)
                .put((byte) 10)
                .put("alice".getBytes(StandardCharsets.UTF_8))
                .put((byte) 14);
        produce(topic, value.array());
        visit("/console/messages?topic=" + topic + "&from=offset&at=0", "alice", "messages-avro");
        assertThat(text()).contains("schema id " + id + " (AVRO)");
        assertThat(browser.findElement(By.cssSelector("#messages pre.json")).getText())
                .isEqualTo("{\n  \"name\": \"alice\",\n  \"n\": 7\n}");
    }

    @Test
    void aProtobufValueWithTheRegistrysHeaderIsShownWithItsFieldNames() throws Exception {
        String topic = "console-it-protobuf";
        int id = register(topic, "PROTOBUF", "syntax = \"proto3\";\nmessage Order { string id = 1; int32 qty = 2; }\n");
        // magic byte 0, the schema id, the message-index list [0], then id "o1" and qty 3
        java.nio.ByteBuffer value = java.nio.ByteBuffer.allocate(5 + 1 + 6);
        value.put((byte) 0).putInt(id).put((byte) 0).put(new byte[] {0x0a, 2, 'o', '1', 0x10, 3});
        produce(topic, value.array());
        visit("/console/messages?topic=" + topic + "&from=offset&at=0", "PROTOBUF", "messages-protobuf");
        assertThat(browser.findElement(By.cssSelector("#messages pre.json")).getText())
                .isEqualTo("{\n  \"id\": \"o1\",\n  \"qty\": 3\n}");
    }

    @Test
    void theBrowserReadsCommittedOnlyAnAbortedTransactionsMessagesAreNotShown() throws Exception {
        String topic = "console-it-txn";
        try (var admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of("transactional.id", "console-it-txn"))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "aborted-value".getBytes(StandardCharsets.UTF_8)));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "committed-value".getBytes(StandardCharsets.UTF_8)));
            producer.commitTransaction();
        }
        visit("/console/messages?topic=" + topic + "&from=offset&at=0", "committed-value", "messages-read-committed");
        assertThat(text()).doesNotContain("aborted-value").contains("1 of 1 messages read match");
    }
}

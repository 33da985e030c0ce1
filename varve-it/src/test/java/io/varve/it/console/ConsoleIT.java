package io.varve.it.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.TestBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The console in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, driven by
 * Selenium): each page loads without console errors and shows what the broker holds; screenshots go to {@code
 * target/console-screenshots/} as artifacts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleIT {
    private static final String TOPIC = "console-it";
    private static final String GROUP = "console-it-group";
    private static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

    @TempDir
    static Path dir;

    private TestBroker broker;
    private ChromeDriver browser;
    private String base;

    @BeforeAll
    void start() throws Exception {
        broker = TestBroker.start(dir.resolve("data"), Map.of("varve.http.listeners", "http://127.0.0.1:0"));
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
        try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, GROUP))) {
            consumer.commitSync(Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(5)));
        }
        Files.createDirectories(SCREENSHOTS);
        ChromeOptions options = new ChromeOptions()
                .setBinary("/usr/bin/chromium")
                .addArguments(
                        "--headless=new",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-dev-shm-usage",
                        "--window-size=1280,900");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(Path.of("/usr/bin/chromedriver").toFile())
                .usingAnyFreePort()
                .build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (broker != null) {
            broker.close();
        }
    }

    /** Opens {@code path}, waits for {@code expected} in the page, saves a screenshot, and checks the console log. */
    private void visit(String path, String expected, String screenshot) throws Exception {
        browser.get(base + path);
        await().atMost(Duration.ofSeconds(20))
                .ignoreExceptions()
                .until(() -> browser.findElement(By.tagName("main")).getText().contains(expected));
        Object htmx = ((JavascriptExecutor) browser).executeScript("return typeof htmx");
        assertThat(htmx).as("htmx loaded from its webjar on %s", path).isEqualTo("object");
        Files.write(
                SCREENSHOTS.resolve(screenshot + ".png"),
                ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
        List<LogEntry> errors = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue())
                .toList();
        assertThat(errors).as("browser console on %s", path).isEmpty();
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
}

package io.varve.it.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
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
 * A headless Chromium (Debian's {@code chromium} and {@code chromium-driver}) on a broker's console: opens pages,
 * saves screenshots under {@code target/console-screenshots/}, fails on any browser console warning or error; and
 * plain HTTP calls for the answers a browser would not show (status codes).
 */
final class ConsoleBrowser implements AutoCloseable {
    static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

    final ChromeDriver driver;
    final String base;

    ConsoleBrowser(String base) throws Exception {
        this.base = base;
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
        driver = new ChromeDriver(service, options);
    }

    /** Opens {@code path}, waits for {@code expected} in the page, then {@link #check}s it. */
    void visit(String path, String expected, String screenshot) throws Exception {
        driver.get(base + path);
        waitFor(expected);
        check(screenshot);
    }

    void waitFor(String expected) {
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> text().contains(expected));
    }

    /** The page shown now: htmx loaded, a screenshot saved, and nothing in the browser console. */
    void check(String screenshot) throws Exception {
        Object htmx = ((JavascriptExecutor) driver).executeScript("return typeof htmx");
        assertThat(htmx)
                .as("htmx loaded from its webjar on %s", driver.getCurrentUrl())
                .isEqualTo("object");
        Files.write(
                SCREENSHOTS.resolve(screenshot + ".png"), ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
        List<LogEntry> errors = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue())
                .toList();
        assertThat(errors).as("browser console on %s", driver.getCurrentUrl()).isEmpty();
    }

    /** Picks the option shown as {@code text} in the select named {@code name}. */
    void select(String name, String text) {
        driver.findElement(By.xpath("//select[@name='" + name + "']/option[text()='" + text + "']"))
                .click();
    }

    String text() {
        return driver.findElement(By.tagName("main")).getText();
    }

    HttpResponse<String> get(String path) throws Exception {
        return HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String form) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(base + path))
                                .header("Content-Type", "application/x-www-form-urlencoded")
                                .POST(HttpRequest.BodyPublishers.ofString(form))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        driver.quit();
    }
}

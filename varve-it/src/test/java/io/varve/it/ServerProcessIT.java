package io.varve.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.varve.storage.LogManager;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code varve server} as a real process: serves clients, shuts down cleanly on SIGTERM, refuses bad configuration. */
class ServerProcessIT {
    @TempDir
    Path workDir;
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() throws InterruptedException {
        for (Process p : started) {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aServerProcessServesProducersAndOnSigtermExitsWithinTenSecondsLeavingACleanShutdownMarker() throws Exception {
        Path logDir = workDir.resolve("data");
        int port = freePort();
        Process server = startServer("--override", "listeners=PLAINTEXT://127.0.0.1:" + port,
                "--override", "log.dirs=" + logDir);

        awaitProducerCanSend(server, port);
        assertThat(logDir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).as("marker while running").doesNotExist();

        server.destroy(); // SIGTERM
        assertThat(server.waitFor(10, TimeUnit.SECONDS)).as("exited within 10 s of SIGTERM").isTrue();
        assertThat(server.exitValue()).as("exit code; output: %s", output()).isIn(0, 143);
        assertThat(logDir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).exists();
    }

    @Test
    void anInvalidConfigValueStopsStartupWithANonZeroExitAndOneLineOnStderr() throws Exception {
        Process server = startServer("--override", "listeners=PLAINTEXT://127.0.0.1:" + freePort(),
                "--override", "log.dirs=" + workDir.resolve("data"),
                "--override", "num.partitions=abc");

        assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("exited").isTrue();
        assertThat(server.exitValue()).isNotZero();
        List<String> stderr = Files.readAllLines(stderrFile().toPath(), UTF_8).stream().filter(l -> !l.isBlank()).toList();
        assertThat(stderr).singleElement().asString().contains("num.partitions").contains("abc");
    }

    @Test
    void anUnknownConfigKeyIsOnlyWarnedAbout() throws Exception {
        int port = freePort();
        Process server = startServer("--override", "listeners=PLAINTEXT://127.0.0.1:" + port,
                "--override", "log.dirs=" + workDir.resolve("data"),
                "--override", "no.such.varve.key=42");

        awaitProducerCanSend(server, port);
        assertThat(output()).contains("no.such.varve.key");
        server.destroy();
        assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }

    private Process startServer(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                "io.varve.cli.Varve", "server"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command)
                .redirectOutput(stdoutFile())
                .redirectError(stderrFile())
                .start();
        started.add(process);
        return process;
    }

    /** Waits (at most 30 s) until a KafkaProducer's send to the server is acknowledged. */
    private void awaitProducerCanSend(Process server, int port) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "3000");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).pollInSameThread()
                    .failFast("the server process exited", () -> !server.isAlive())
                    .ignoreExceptions()
                    .until(() -> producer.send(new ProducerRecord<>("process-check", "ping".getBytes(UTF_8)))
                            .get(5, TimeUnit.SECONDS).hasOffset());
        }
    }

    private File stdoutFile() {
        return workDir.resolve("server.out").toFile();
    }

    private File stderrFile() {
        return workDir.resolve("server.err").toFile();
    }

    private String output() throws IOException {
        return "stdout:\n" + Files.readString(stdoutFile().toPath()) + "\nstderr:\n" + Files.readString(stderrFile().toPath());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}

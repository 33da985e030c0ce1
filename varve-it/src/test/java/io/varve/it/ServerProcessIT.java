package io.varve.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.LogManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code varve server} as a real process: serves clients, shuts down cleanly on SIGTERM, refuses bad configuration. */
class ServerProcessIT {
    @TempDir
    Path workDir;

    @Test
    void aServerProcessServesProducersAndOnSigtermExitsWithinTenSecondsLeavingACleanShutdownMarker() throws Exception {
        Path logDir = workDir.resolve("data");
        try (ServerProcess server =
                ServerProcess.startOnFreePort(workDir, "server", logDir).awaitReady()) {
            assertThat(logDir.resolve(LogManager.CLEAN_SHUTDOWN_FILE))
                    .as("marker while running")
                    .doesNotExist();

            assertThat(server.terminate(Duration.ofSeconds(10)))
                    .as("exited within 10 s of SIGTERM")
                    .isTrue();
            assertThat(server.process().exitValue())
                    .as("exit code; output: %s", server.output())
                    .isIn(0, 143);
            assertThat(logDir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).exists();
        }
    }

    @Test
    void anInvalidConfigValueStopsStartupWithANonZeroExitAndOneLineOnStderr() throws Exception {
        try (ServerProcess server = ServerProcess.startOnFreePort(
                workDir, "server", workDir.resolve("data"), "--override", "num.partitions=abc")) {
            assertThat(server.process().waitFor(30, TimeUnit.SECONDS))
                    .as("exited")
                    .isTrue();
            assertThat(server.process().exitValue()).isNotZero();
            List<String> stderr = Files.readAllLines(server.stderrFile().toPath(), UTF_8).stream()
                    .filter(l -> !l.isBlank())
                    .toList();
            assertThat(stderr)
                    .singleElement()
                    .asString()
                    .contains("num.partitions")
                    .contains("abc");
        }
    }

    @Test
    void anUnknownConfigKeyIsOnlyWarnedAbout() throws Exception {
        try (ServerProcess server = ServerProcess.startOnFreePort(
                        workDir, "server", workDir.resolve("data"), "--override", "no.such.varve.key=42")
                .awaitReady()) {
            assertThat(server.output()).contains("no.such.varve.key");
            assertThat(server.terminate(Duration.ofSeconds(10))).isTrue();
        }
    }
}

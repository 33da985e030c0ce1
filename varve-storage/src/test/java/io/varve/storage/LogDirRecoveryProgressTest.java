package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Recovering a crashed log dir logs its progress every few seconds, not only a final line. */
class LogDirRecoveryProgressTest {
    private static final int PARTITIONS = 40;

    @TempDir
    Path dir;

    @Test
    void recoveringACrashedLogDirLogsPercentAndRateWhileItRunsThenADoneLine() throws Exception {
        LogManagerConfig config = LogManagerConfig.defaults().withoutBackgroundTasks();
        try (LogManager first = new LogManager(List.of(dir), LogConfig.defaults(), config, () -> 0L)) {
            for (int p = 0; p < PARTITIONS; p++) {
                first.getOrCreateLog(new TopicPartition("recovering", p), Uuid.ZERO_UUID, LogConfig.defaults());
            }
        }
        Files.delete(dir.resolve(LogManager.CLEAN_SHUTDOWN_FILE)); // as after a crash
        Logger logger = (Logger) LoggerFactory.getLogger(LogManager.class);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        Level level = logger.getLevel();
        logger.setLevel(Level.INFO); // the tests' logback configuration may keep INFO out
        AtomicLong nowMs = new AtomicLong();
        try (LogManager recovering =
                new LogManager(List.of(dir), LogConfig.defaults(), config, () -> nowMs.addAndGet(1_000))) {
            assertThat(recovering.openLogs()).hasSize(PARTITIONS);
        } finally {
            logger.detachAppender(lines);
            logger.setLevel(level);
        }
        List<String> progress = lines.list.stream()
                .map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.startsWith(
                        "Recovering log dir " + dir.toAbsolutePath().normalize()))
                .toList();
        assertThat(progress).hasSizeGreaterThanOrEqualTo(2);
        assertThat(progress.get(0)).matches(".*: \\d+ of 40 partitions \\(\\d+%\\), [0-9.]+ partitions/s.*");
        assertThat(progress.get(progress.size() - 1)).contains(": done, 40 partitions in ");
    }
}

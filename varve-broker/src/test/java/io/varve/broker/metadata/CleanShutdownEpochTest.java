package io.varve.broker.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.LogManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CleanShutdownEpochTest {
    @TempDir
    Path a;

    @TempDir
    Path b;

    private void logsClosedCleanly(Path... dirs) throws Exception {
        for (Path d : dirs) {
            Files.write(d.resolve(LogManager.CLEAN_SHUTDOWN_FILE), new byte[0]);
        }
    }

    @Test
    void theEpochOfACleanShutdownIsShownOnceAtTheNextStart() throws Exception {
        logsClosedCleanly(a, b);
        CleanShutdownEpoch.recordIfClean(List.of(a, b), 42);

        assertThat(CleanShutdownEpoch.take(List.of(a, b))).isEqualTo(42);
        // a crash after this start must count as unclean: the file is gone
        assertThat(CleanShutdownEpoch.take(List.of(a, b))).isEqualTo(CleanShutdownEpoch.NONE);
    }

    @Test
    void logsThatDidNotCloseCleanlyRecordNoEpoch() throws Exception {
        logsClosedCleanly(a); // b has no marker: its log manager could not close it cleanly
        CleanShutdownEpoch.recordIfClean(List.of(a, b), 42);

        assertThat(CleanShutdownEpoch.take(List.of(a, b))).isEqualTo(CleanShutdownEpoch.NONE);
    }

    @Test
    void aDirThatLostItsMarkerSinceTheShutdownMakesTheRestartUnclean() throws Exception {
        logsClosedCleanly(a, b);
        CleanShutdownEpoch.recordIfClean(List.of(a, b), 42);
        Files.delete(b.resolve(LogManager.CLEAN_SHUTDOWN_FILE));

        assertThat(CleanShutdownEpoch.take(List.of(a, b))).isEqualTo(CleanShutdownEpoch.NONE);
        assertThat(Files.exists(a.resolve(CleanShutdownEpoch.FILE))).isFalse();
    }

    @Test
    void aBrokerThatNeverRegisteredRecordsNothing() throws Exception {
        logsClosedCleanly(a);
        CleanShutdownEpoch.recordIfClean(List.of(a), -1);

        assertThat(CleanShutdownEpoch.take(List.of(a))).isEqualTo(CleanShutdownEpoch.NONE);
    }
}

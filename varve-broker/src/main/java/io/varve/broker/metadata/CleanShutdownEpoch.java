package io.varve.broker.metadata;

import io.varve.storage.LogManager;
import io.varve.storage.fs.DurableFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * KIP-966's PreviousBrokerEpoch: a broker whose logs were closed cleanly tells the controller, in its next
 * BrokerRegistration, the broker epoch it had, and so keeps its eligible-leader-replica memberships (its logs hold
 * every record it acknowledged). The epoch is written after the log manager's own clean-shutdown markers, and taken
 * (read, then deleted) at the next start before the logs open: a crash at any point after that start, or a shutdown
 * whose logs did not close cleanly, leaves no file, so the next registration counts as unclean (-1).
 */
public final class CleanShutdownEpoch {
    private static final Logger log = LoggerFactory.getLogger(CleanShutdownEpoch.class);
    static final String FILE = ".varve-broker-epoch";
    /** BrokerRegistration's "no clean shutdown shown". */
    public static final long NONE = -1L;

    private CleanShutdownEpoch() {}

    /**
     * The broker epoch of the last shutdown if every log dir shows a clean one, else {@link #NONE}; the file is gone
     * afterwards either way. Call before the log manager opens the dirs (it removes their markers).
     */
    public static long take(List<Path> logDirs) {
        Path file = logDirs.get(0).resolve(FILE);
        long epoch = NONE;
        try {
            if (Files.exists(file)) {
                boolean allClean =
                        logDirs.stream().allMatch(d -> Files.exists(d.resolve(LogManager.CLEAN_SHUTDOWN_FILE)));
                String text = Files.readString(file, StandardCharsets.UTF_8).trim();
                epoch = allClean && text.matches("\\d+") ? Long.parseLong(text) : NONE;
                Files.delete(file);
                DurableFiles.fsyncDirectory(logDirs.get(0));
            }
        } catch (IOException | NumberFormatException e) {
            log.warn(
                    "Could not read the broker epoch of the last clean shutdown in {}: registering as unclean",
                    file,
                    e);
            return NONE;
        }
        return epoch;
    }

    /** After the logs closed: records {@code brokerEpoch} if every log dir has its clean-shutdown marker. */
    public static void recordIfClean(List<Path> logDirs, long brokerEpoch) {
        if (brokerEpoch < 0
                || !logDirs.stream().allMatch(d -> Files.exists(d.resolve(LogManager.CLEAN_SHUTDOWN_FILE)))) {
            return;
        }
        Path dir = logDirs.get(0);
        try {
            DurableFiles.replace(
                    dir.resolve(FILE),
                    ByteBuffer.wrap(Long.toString(brokerEpoch).getBytes(StandardCharsets.UTF_8)),
                    true);
        } catch (IOException e) {
            log.warn("Could not record broker epoch {} of this clean shutdown in {}", brokerEpoch, dir, e);
        }
    }
}

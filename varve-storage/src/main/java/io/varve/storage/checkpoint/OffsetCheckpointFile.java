package io.varve.storage.checkpoint;

import io.varve.storage.fs.DurableFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;

/**
 * A per-log-dir offset checkpoint in Kafka's text format: a version line ({@code 0}), a count line,
 * then one {@code "<topic> <partition> <offset>"} line per partition. Used for
 * {@code recovery-point-offset-checkpoint}, {@code log-start-offset-checkpoint},
 * {@code replication-offset-checkpoint} (high watermarks) and {@code cleaner-offset-checkpoint}. Replaced atomically on every write.
 */
public final class OffsetCheckpointFile {

    public static final String RECOVERY_POINT_FILE = "recovery-point-offset-checkpoint";
    public static final String LOG_START_OFFSET_FILE = "log-start-offset-checkpoint";
    public static final String CLEANER_OFFSET_FILE = "cleaner-offset-checkpoint";
    /** Kafka's name for the high watermarks of a log dir's partitions. */
    public static final String HIGH_WATERMARK_FILE = "replication-offset-checkpoint";

    private static final int VERSION = 0;

    private final Path file;

    public OffsetCheckpointFile(Path logDir, String fileName) {
        this.file = logDir.resolve(fileName);
    }

    public Path file() {
        return file;
    }

    public void write(Map<TopicPartition, Long> offsets) {
        StringBuilder text = new StringBuilder()
                .append(VERSION)
                .append('\n')
                .append(offsets.size())
                .append('\n');
        offsets.forEach((tp, offset) -> text.append(tp.topic())
                .append(' ')
                .append(tp.partition())
                .append(' ')
                .append(offset)
                .append('\n'));
        DurableFiles.writeAtomically(file, text.toString());
    }

    /** The stored offsets; empty when the file does not exist. */
    public Map<TopicPartition, Long> read() {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Map.of();
        } catch (IOException e) {
            throw new KafkaStorageException("Could not read " + file, e);
        }
        try {
            if (lines.size() < 2 || Integer.parseInt(lines.get(0).trim()) != VERSION) {
                throw malformed("missing or unknown version", null);
            }
            int count = Integer.parseInt(lines.get(1).trim());
            if (count < 0 || lines.size() < 2 + count) {
                throw malformed("count " + count + " but " + (lines.size() - 2) + " entry lines", null);
            }
            Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                String[] fields = lines.get(2 + i).trim().split(" ");
                if (fields.length != 3) {
                    throw malformed("line " + (3 + i) + " is not '<topic> <partition> <offset>'", null);
                }
                offsets.put(new TopicPartition(fields[0], Integer.parseInt(fields[1])), Long.parseLong(fields[2]));
            }
            return offsets;
        } catch (NumberFormatException e) {
            throw malformed("not a number", e);
        }
    }

    private KafkaStorageException malformed(String why, Throwable cause) {
        return new KafkaStorageException("Malformed " + file + ": " + why, cause);
    }
}

package io.varve.storage.checkpoint;

import io.varve.storage.fs.DurableFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.kafka.common.errors.KafkaStorageException;

/**
 * The {@code leader-epoch-checkpoint} file: a version line, a count line, then one
 * {@code "<epoch> <startOffset>"} line per entry, oldest first. Replaced atomically on every write.
 */
public final class LeaderEpochCheckpointFile {
    /** Compiled once: String.split with a regex compiles it per call, and every log reads this file at start-up. */
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    public static final String FILE_NAME = "leader-epoch-checkpoint";
    private static final int VERSION = 0;

    /** One leader epoch and the first offset written in it. */
    public record EpochEntry(int epoch, long startOffset) {}

    private final Path file;

    public LeaderEpochCheckpointFile(Path partitionDir) {
        this.file = partitionDir.resolve(FILE_NAME);
    }

    public void write(List<EpochEntry> entries) {
        write(entries, true);
    }

    /** Replaces the file whole (temp file and rename); fsynced only when {@code durable}. */
    public void write(List<EpochEntry> entries, boolean durable) {
        if (durable) {
            DurableFiles.writeAtomically(file, encode(entries));
            return;
        }
        try {
            DurableFiles.replace(
                    file, java.nio.ByteBuffer.wrap(encode(entries).getBytes(StandardCharsets.UTF_8)), false);
        } catch (IOException e) {
            throw new KafkaStorageException("Could not write " + file, e);
        }
    }

    /** The file's text for {@code entries} (also what a tiered segment carries as its leader-epoch checkpoint). */
    public static String encode(List<EpochEntry> entries) {
        StringBuilder text = new StringBuilder()
                .append(VERSION)
                .append('\n')
                .append(entries.size())
                .append('\n');
        for (EpochEntry entry : entries) {
            text.append(entry.epoch()).append(' ').append(entry.startOffset()).append('\n');
        }
        return text.toString();
    }

    /** The stored entries; empty when the file does not exist. */
    public List<EpochEntry> read() {
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            if (lines.size() < 2 || Integer.parseInt(lines.get(0).trim()) != VERSION) {
                throw malformed("missing or unknown version", null);
            }
            int count = Integer.parseInt(lines.get(1).trim());
            if (count < 0 || lines.size() < 2 + count) {
                throw malformed("count " + count + " but " + (lines.size() - 2) + " entry lines", null);
            }
            List<EpochEntry> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String[] fields = WHITESPACE.split(lines.get(2 + i).trim());
                if (fields.length != 2) {
                    throw malformed("line " + (3 + i) + " is not '<epoch> <startOffset>'", null);
                }
                entries.add(new EpochEntry(Integer.parseInt(fields[0]), Long.parseLong(fields[1])));
            }
            return entries;
        } catch (NumberFormatException e) {
            throw malformed("not a number", e);
        } catch (IOException e) {
            throw new KafkaStorageException("Could not read " + file, e);
        }
    }

    private KafkaStorageException malformed(String why, Throwable cause) {
        return new KafkaStorageException("Malformed " + file + ": " + why, cause);
    }
}

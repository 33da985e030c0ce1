package io.varve.storage.checkpoint;

import io.varve.storage.fs.DurableFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.KafkaStorageException;

/** The {@code partition.metadata} file: {@code "version: 0\ntopic_id: <uuid>"}. */
public final class PartitionMetadataFile {

    public static final String FILE_NAME = "partition.metadata";
    private static final int VERSION = 0;
    private static final String VERSION_KEY = "version: ";
    private static final String TOPIC_ID_KEY = "topic_id: ";

    private final Path file;

    public PartitionMetadataFile(Path partitionDir) {
        this.file = partitionDir.resolve(FILE_NAME);
    }

    public void write(Uuid topicId) {
        write(topicId, true);
    }

    /** Writes the file whole (temp file and rename); fsynced at once only when {@code durable} (see {@link #fsync}). */
    public void write(Uuid topicId, boolean durable) {
        String content = VERSION_KEY + VERSION + "\n" + TOPIC_ID_KEY + topicId;
        if (durable) {
            DurableFiles.writeAtomically(file, content);
            return;
        }
        try {
            DurableFiles.replace(file, java.nio.ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8)), false);
        } catch (IOException e) {
            throw new KafkaStorageException("Could not write " + file, e);
        }
    }

    /** Makes a file written without an fsync durable. */
    public void fsync() throws IOException {
        if (Files.exists(file)) {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                channel.force(true);
            }
        }
    }

    /** The stored topic id, or empty when the file does not exist. */
    public Optional<Uuid> read() {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        String[] lines;
        try {
            lines = Files.readString(file, StandardCharsets.UTF_8).split("\n");
        } catch (IOException e) {
            throw new KafkaStorageException("Could not read " + file, e);
        }
        if (lines.length == 1 && lines[0].isEmpty()) {
            // a new log's file, renamed into place but cut short by a power loss before its first flush: the log
            // held nothing then either, and its topic id is written again
            return Optional.empty();
        }
        if (lines.length < 2 || !lines[0].trim().equals(VERSION_KEY + VERSION) || !lines[1].startsWith(TOPIC_ID_KEY)) {
            throw new KafkaStorageException(
                    "Malformed " + file + ": expected version " + VERSION + " and a topic_id line");
        }
        try {
            return Optional.of(
                    Uuid.fromString(lines[1].substring(TOPIC_ID_KEY.length()).trim()));
        } catch (IllegalArgumentException e) {
            throw new KafkaStorageException("Malformed topic id in " + file, e);
        }
    }
}

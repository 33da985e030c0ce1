package io.varve.raft.state;

import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Properties;

/**
 * Keeps the {@link ElectionState} in a small text file named {@value #FILE_NAME}:
 *
 * <pre>
 *   # Varve Raft quorum state; written atomically, do not edit
 *   version=1
 *   epoch=7
 *   votedId=1
 *   leaderId=1
 * </pre>
 *
 * <p>Writes go to a temporary file which is fsynced, renamed over the old file, and followed by an
 * fsync of the directory, so a reader sees either the old or the new state, never a mix.
 */
public final class FileQuorumStateStore implements QuorumStateStore {

    public static final String FILE_NAME = "quorum-state";
    private static final String TEMP_SUFFIX = ".tmp";
    private static final int VERSION = 1;

    private final Path dir;
    private final Path file;
    private final Path tempFile;

    public FileQuorumStateStore(Path dir) {
        this.dir = dir;
        this.file = dir.resolve(FILE_NAME);
        this.tempFile = dir.resolve(FILE_NAME + TEMP_SUFFIX);
    }

    @Override
    public Optional<ElectionState> read() throws IOException {
        Files.deleteIfExists(tempFile); // an interrupted write; the previous file is intact
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        Properties properties = new Properties();
        properties.load(new StringReader(text));
        int version = intField(properties, "version");
        if (version != VERSION) {
            throw new IOException("unsupported version " + version + " of " + file);
        }
        return Optional.of(new ElectionState(
                intField(properties, "epoch"), intField(properties, "votedId"), intField(properties, "leaderId")));
    }

    private int intField(Properties properties, String name) throws IOException {
        String value = properties.getProperty(name);
        if (value == null) {
            throw new IOException("field " + name + " is missing from " + file);
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IOException("field " + name + " of " + file + " is not an integer: " + value, e);
        }
    }

    @Override
    public void write(ElectionState state) throws IOException {
        Files.createDirectories(dir);
        String text = "# Varve Raft quorum state; written atomically, do not edit\n"
                + "version=" + VERSION + "\n"
                + "epoch=" + state.epoch() + "\n"
                + "votedId=" + state.votedId() + "\n"
                + "leaderId=" + state.leaderId() + "\n";
        try (FileChannel channel = FileChannel.open(
                tempFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            channel.force(true);
        }
        Files.move(tempFile, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
            directory.force(true);
        }
    }
}

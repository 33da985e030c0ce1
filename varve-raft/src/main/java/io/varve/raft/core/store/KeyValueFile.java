package io.varve.raft.core.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A small text file of {@code key=value} lines with a comment on top, replaced atomically: the format of
 * {@code quorum-state} and {@code log-start}. Every value is an integer; a missing or malformed field, an
 * unknown version or a stray key fails loudly (the file is never guessed at).
 */
final class KeyValueFile {
    private static final int MAX_BYTES = 4096;

    private final Path file;
    private final String comment;
    private final int version;

    KeyValueFile(Path file, String comment, int version) {
        this.file = file;
        this.comment = comment;
        this.version = version;
    }

    Path path() {
        return file;
    }

    /** The fields, or empty when the file does not exist. Removes a temp file an interrupted write left. */
    Optional<Map<String, Long>> read() {
        try {
            Files.deleteIfExists(file.resolveSibling(file.getFileName() + DurableIo.TEMP_SUFFIX));
            if (Files.size(file) > MAX_BYTES) {
                throw new IllegalStateException(file + " is larger than " + MAX_BYTES + " bytes: not ours");
            }
            String text = Files.readString(file, StandardCharsets.UTF_8);
            Map<String, Long> fields = new LinkedHashMap<>();
            for (String line : text.split("\n")) {
                String trimmed = line.trim();
                if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                    continue;
                }
                int eq = trimmed.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalStateException("malformed line in " + file + ": " + trimmed);
                }
                fields.put(
                        trimmed.substring(0, eq).trim(),
                        parse(trimmed.substring(eq + 1).trim()));
            }
            Long found = fields.remove("version");
            if (found == null || found != version) {
                throw new IllegalStateException(
                        "unsupported version " + found + " of " + file + " (expected " + version + ")");
            }
            return Optional.of(fields);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + file, e);
        }
    }

    /** Replaces the file with these fields; durable when it returns. */
    void write(Map<String, Long> fields) {
        StringBuilder text = new StringBuilder("# ").append(comment).append('\n');
        text.append("version=").append(version).append('\n');
        fields.forEach(
                (key, value) -> text.append(key).append('=').append(value).append('\n'));
        DurableIo.replaceAtomically(file, text.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The field {@code key}, which must be present. */
    long require(Map<String, Long> fields, String key) {
        Long value = fields.get(key);
        if (value == null) {
            throw new IllegalStateException("field " + key + " is missing from " + file);
        }
        return value;
    }

    private long parse(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("value " + value + " in " + file + " is not an integer", e);
        }
    }
}

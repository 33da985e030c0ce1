package io.varve.broker;

import io.varve.broker.config.ConfigException;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.metadata.record.VersionRange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The feature levels a new cluster starts with, as Kafka 4.4's {@code kafka-storage format} finalizes them:
 * metadata.version at this build's highest, group.version 1 (KIP-848), eligible.leader.replicas.version 1 (KIP-966) and
 * transaction.version 2 (KIP-890 transactions v2). {@code varve format --feature transaction.version=1} changes one
 * of them; the choice is kept in {@value #FILE} in the metadata log directory until the first active controller
 * finalizes the levels. Afterwards only UpdateFeatures ({@code kafka-features upgrade/downgrade}) changes them.
 */
public final class BootstrapFeatures {
    static final String FILE = "bootstrap-features";

    /** What Kafka 4.4 finalizes in a new cluster when {@code --feature} does not say otherwise. */
    public static Map<String, Short> defaults() {
        Map<String, Short> levels = new TreeMap<>();
        levels.put(
                SupportedFeatures.METADATA_VERSION,
                SupportedFeatures.THIS_BUILD
                        .get(SupportedFeatures.METADATA_VERSION)
                        .max());
        levels.put(SupportedFeatures.GROUP_VERSION, (short) 1);
        levels.put(SupportedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION, (short) 1);
        levels.put(SupportedFeatures.TRANSACTION_VERSION, SupportedFeatures.DEFAULT_TRANSACTION_VERSION);
        levels.put(SupportedFeatures.STREAMS_VERSION, (short) 1); // KIP-1071 streams groups, as a new 4.2+ cluster
        return levels;
    }

    private BootstrapFeatures() {}

    /** Parses {@code --feature NAME=LEVEL} arguments; a malformed or unsupported one is a ConfigException. */
    public static Map<String, Short> parse(List<String> arguments) {
        Map<String, Short> levels = new TreeMap<>();
        for (String argument : arguments) {
            int equals = argument.indexOf('=');
            String name =
                    equals < 0 ? argument.trim() : argument.substring(0, equals).trim();
            short level;
            try {
                level = equals < 0
                        ? -1
                        : Short.parseShort(argument.substring(equals + 1).trim());
            } catch (NumberFormatException e) {
                level = -1;
            }
            if (level < 0) {
                throw new ConfigException(
                        "--feature '" + argument + "' is not NAME=LEVEL, for example" + " transaction.version=1.");
            }
            VersionRange supported = SupportedFeatures.THIS_BUILD.get(name);
            if (supported == null) {
                throw new ConfigException("--feature names " + name + ", which this build does not know: use one of "
                        + new TreeMap<>(SupportedFeatures.THIS_BUILD).keySet() + ".");
            }
            boolean removable = !name.equals(SupportedFeatures.METADATA_VERSION) && level == 0;
            if (!removable && !supported.contains(level)) {
                throw new ConfigException("--feature " + name + "=" + level + " is not supported: this build supports "
                        + name + " " + supported.min() + " to " + supported.max() + ".");
            }
            if (levels.put(name, level) != null) {
                throw new ConfigException("--feature gives " + name + " twice: give each feature once.");
            }
        }
        return levels;
    }

    /** Writes the chosen levels into the metadata log directory (nothing when none was chosen). */
    public static void write(Path metadataDir, Map<String, Short> levels) throws IOException {
        if (levels.isEmpty()) {
            return;
        }
        StringBuilder text = new StringBuilder();
        new TreeMap<>(levels)
                .forEach((name, level) ->
                        text.append(name).append('=').append(level).append('\n'));
        Files.createDirectories(metadataDir);
        Files.writeString(metadataDir.resolve(FILE), text, StandardCharsets.UTF_8);
    }

    /** The defaults with what {@code varve format --feature} chose on top. */
    public static Map<String, Short> read(Path metadataDir) throws IOException {
        Map<String, Short> levels = defaults();
        Path file = metadataDir.resolve(FILE);
        if (!Files.exists(file)) {
            return levels;
        }
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            int equals = line.indexOf('=');
            if (equals <= 0) {
                throw new IllegalStateException(file + " holds a line that is not NAME=LEVEL: " + line);
            }
            levels.put(
                    line.substring(0, equals),
                    Short.parseShort(line.substring(equals + 1).trim()));
        }
        return levels;
    }
}

package io.varve.broker;

import io.varve.broker.config.ConfigException;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.Uuid;

/**
 * {@code meta.properties} in every log dir: the cluster id and node id the directory belongs to, written at the
 * first start (Varve formats empty directories itself) and checked at every later one, so a directory from
 * another cluster or node is never mixed in.
 */
public final class MetaProperties {
    static final String FILE_NAME = "meta.properties";

    private MetaProperties() {}

    /** Returns the cluster id shared by all dirs, writing meta.properties where it is missing. */
    public static String loadOrFormat(List<Path> dirs, int nodeId) throws IOException {
        String clusterId = null;
        for (Path dir : dirs) {
            Path file = dir.resolve(FILE_NAME);
            if (!Files.exists(file)) {
                continue;
            }
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(r);
            }
            String dirNode = p.getProperty("node.id");
            if (dirNode != null && !dirNode.equals(Integer.toString(nodeId))) {
                throw new ConfigException(
                        "Log directory " + dir + " belongs to node " + dirNode + ", not to node.id " + nodeId + ".");
            }
            String dirCluster = p.getProperty("cluster.id");
            if (clusterId != null && dirCluster != null && !dirCluster.equals(clusterId)) {
                throw new ConfigException(
                        "Log directories disagree on the cluster id (" + clusterId + " and " + dirCluster + ").");
            }
            if (dirCluster != null) {
                clusterId = dirCluster;
            }
        }
        if (clusterId == null) {
            clusterId = Uuid.randomUuid().toString();
        }
        for (Path dir : dirs) {
            if (!Files.exists(dir.resolve(FILE_NAME))) {
                write(dir, clusterId, nodeId, Uuid.randomUuid());
            }
        }
        return clusterId;
    }

    /** Writes a directory's meta.properties (atomically) as Kafka's {@code kafka-storage format} does. */
    public static void write(Path dir, String clusterId, int nodeId, Uuid directoryId) throws IOException {
        Files.createDirectories(dir);
        Properties p = new Properties();
        p.setProperty("version", "1");
        p.setProperty("cluster.id", clusterId);
        p.setProperty("node.id", Integer.toString(nodeId));
        p.setProperty("directory.id", directoryId.toString());
        Path tmp = dir.resolve(FILE_NAME + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(w, "Written by Varve");
        }
        Files.move(tmp, dir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Whether {@code dir} holds a meta.properties. */
    public static boolean isFormatted(Path dir) {
        return Files.exists(dir.resolve(FILE_NAME));
    }

    /** The {@code directory.id} in {@code dir}'s meta.properties, or null when there is none. */
    public static Uuid directoryId(Path dir) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        if (!Files.exists(file)) {
            return null;
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        String id = p.getProperty("directory.id");
        try {
            return id == null ? null : Uuid.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("directory.id '" + id + "' in " + file + " is not a Kafka uuid.");
        }
    }
}

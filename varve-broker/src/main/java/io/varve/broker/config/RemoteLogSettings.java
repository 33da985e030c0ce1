package io.varve.broker.config;

import io.varve.tiered.RemoteStorageFactory;
import io.varve.tiered.manager.RemoteLogManagerConfig;
import io.varve.tiered.manager.RetryBackoff;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The remote log manager's settings and its storage backend's config, from the broker's {@code remote.log.*} keys.
 * Varve's default backend is the filesystem one under {@code <first log dir>-remote} (a sibling of the data
 * directory, e.g. {@code ./varve-data-remote}) unless {@code rsm.config.fs.root.dir} names another.
 */
public final class RemoteLogSettings {
    /** Suffix of the default filesystem backend's directory, next to the first log dir. */
    public static final String DEFAULT_FS_ROOT_SUFFIX = "-remote";

    private RemoteLogSettings() {}

    public static RemoteLogManagerConfig managerConfig(BrokerConfig config) {
        String pauseAt = (String) config.remoteLogValue("varve.test.remote.log.pause.at");
        String marker = (String) config.remoteLogValue("varve.test.remote.log.pause.marker");
        Optional<RemoteLogManagerConfig.TestPause> pause = pauseAt == null || pauseAt.isBlank()
                ? Optional.empty()
                : Optional.of(new RemoteLogManagerConfig.TestPause(
                        pauseAt.trim(), Path.of(marker == null ? "remote-log-pause.marker" : marker)));
        return new RemoteLogManagerConfig(
                (Integer) config.remoteLogValue("remote.log.manager.copier.thread.pool.size"),
                (Long) config.remoteLogValue("remote.log.manager.task.interval.ms"),
                (Long) config.remoteLogValue("remote.log.manager.copy.max.bytes.per.second"),
                new RetryBackoff(
                        (Long) config.remoteLogValue("remote.log.manager.task.retry.backoff.ms"),
                        Math.max((Long) config.remoteLogValue("remote.log.manager.task.retry.backoff.ms"), (Long)
                                config.remoteLogValue("remote.log.manager.task.retry.backoff.max.ms")),
                        (Double) config.remoteLogValue("remote.log.manager.task.retry.jitter")),
                pause);
    }

    /**
     * In a cluster the remote tier must be one store shared by every broker (the leader's uploads and the metadata
     * journal are read by the others): the filesystem backend's default root is a per-node directory, so say so.
     */
    public static java.util.Optional<String> clusterWarning(BrokerConfig config) {
        String prefix = (String) config.remoteLogValue(RemoteStorageFactory.IMPL_PREFIX_CONFIG);
        String backend = config.originals().getOrDefault(RemoteStorageFactory.CLASS_NAME_CONFIG, (String)
                config.remoteLogValue(RemoteStorageFactory.CLASS_NAME_CONFIG));
        if ("filesystem".equals(backend) && !config.originals().containsKey(prefix + "fs.root.dir")) {
            return java.util.Optional.of(prefix + "fs.root.dir is not set: in a cluster every broker must use the same"
                    + " remote tier (a directory they all share, or S3), or tiered topics with several replicas"
                    + " re-upload on every leader change and followers never free their local segments");
        }
        return java.util.Optional.empty();
    }

    /** What {@link RemoteStorageFactory#create} gets: the broker's keys plus the default filesystem root. */
    public static Map<String, String> storageConfig(BrokerConfig config) {
        Map<String, String> result = new HashMap<>(config.originals());
        String prefix = (String) config.remoteLogValue(RemoteStorageFactory.IMPL_PREFIX_CONFIG);
        result.put(RemoteStorageFactory.IMPL_PREFIX_CONFIG, prefix);
        result.putIfAbsent(RemoteStorageFactory.CLASS_NAME_CONFIG, (String)
                config.remoteLogValue(RemoteStorageFactory.CLASS_NAME_CONFIG));
        Path firstLogDir = config.logDirs().get(0).toAbsolutePath().normalize();
        result.putIfAbsent(
                prefix + "fs.root.dir",
                firstLogDir
                        .resolveSibling(firstLogDir.getFileName() + DEFAULT_FS_ROOT_SUFFIX)
                        .toString());
        return result;
    }
}

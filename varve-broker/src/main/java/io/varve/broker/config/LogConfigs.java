package io.varve.broker.config;

import io.varve.storage.CleanupPolicy;
import io.varve.storage.LogConfig;
import io.varve.storage.LogManagerConfig;
import io.varve.storage.cleaner.CleanerConfig;
import java.util.Map;
import java.util.Set;

/**
 * Effective storage config of a topic: its overrides (topic-level keys) over the broker's log.* defaults,
 * and the log manager's broker-level schedules.
 */
public final class LogConfigs {
    private final LogConfig brokerDefaults;
    private final LogManagerConfig logManagerConfig;
    /** remote.log.storage.system.enable: without it no topic is tiered, whatever its remote.storage.enable. */
    private final boolean remoteStorageSystemEnable;

    public LogConfigs(BrokerConfig config) {
        this.brokerDefaults = LogConfig.builder()
                .segmentBytes(config.logSegmentBytes())
                .indexIntervalBytes(config.logIndexIntervalBytes())
                .maxIndexSizeBytes(config.logIndexSizeMaxBytes())
                .maxMessageBytes(config.messageMaxBytes())
                .logAppendTime(config.logAppendTime())
                .flushMessages(config.logFlushIntervalMessages())
                .flushMs(config.logFlushIntervalMs())
                .segmentMs(config.logRollMs())
                .retentionMs(config.logRetentionMs())
                .retentionBytes(config.logRetentionBytes())
                .cleanupPolicy(cleanupPolicy("log.cleanup.policy", String.join(",", config.logCleanupPolicy())))
                .fileDeleteDelayMs(config.logSegmentDeleteDelayMs())
                .deleteRetentionMs(config.logCleanerDeleteRetentionMs())
                .minCleanableDirtyRatio(config.logCleanerMinCleanableRatio())
                .minCompactionLagMs(config.logCleanerMinCompactionLagMs())
                .maxCompactionLagMs(config.logCleanerMaxCompactionLagMs())
                .messageTimestampBeforeMaxMs(config.logMessageTimestampBeforeMaxMs())
                .messageTimestampAfterMaxMs(config.logMessageTimestampAfterMaxMs())
                .localRetentionMs((Long) config.remoteLogValue("log.local.retention.ms"))
                .localRetentionBytes((Long) config.remoteLogValue("log.local.retention.bytes"))
                .build();
        this.remoteStorageSystemEnable = config.remoteLogStorageSystemEnable();
        this.logManagerConfig = new LogManagerConfig(
                        config.logRetentionCheckIntervalMs(),
                        Math.max(1, config.logFlushOffsetCheckpointIntervalMs()),
                        Math.max(1, config.logFlushSchedulerIntervalMs()),
                        config.producerIdExpirationMs(),
                        LogManagerConfig.defaults().producerIdExpirationCheckIntervalMs(),
                        true)
                .withCleaner(new CleanerConfig(
                        config.logCleanerEnable(),
                        config.logCleanerThreads(),
                        config.logCleanerBackoffMs(),
                        config.logCleanerDedupeBufferSize()))
                .withHighWatermarkCheckpointIntervalMs(config.replicaHighWatermarkCheckpointIntervalMs());
    }

    public LogConfig brokerDefaults() {
        return brokerDefaults;
    }

    /** The log manager's schedules (retention checks, checkpoints, flushes, producer expiry) and its cleaner. */
    public LogManagerConfig logManagerConfig() {
        return logManagerConfig;
    }

    /** Topic overrides were validated by the controller before they reached the metadata log. */
    public LogConfig forTopic(Map<String, String> overrides) {
        if (overrides.isEmpty()) {
            return brokerDefaults;
        }
        LogConfig.Builder c = brokerDefaults.toBuilder();
        String v;
        if ((v = overrides.get("segment.bytes")) != null) {
            c.segmentBytes(Long.parseLong(v));
        }
        if ((v = overrides.get("index.interval.bytes")) != null) {
            c.indexIntervalBytes(Integer.parseInt(v));
        }
        if ((v = overrides.get("segment.index.bytes")) != null) {
            c.maxIndexSizeBytes(Integer.parseInt(v));
        }
        if ((v = overrides.get("max.message.bytes")) != null) {
            c.maxMessageBytes(Integer.parseInt(v));
        }
        if ((v = overrides.get("message.timestamp.type")) != null) {
            c.logAppendTime("LogAppendTime".equalsIgnoreCase(v));
        }
        if ((v = overrides.get("flush.messages")) != null) {
            c.flushMessages(Long.parseLong(v));
        }
        if ((v = overrides.get("flush.ms")) != null) {
            c.flushMs(Long.parseLong(v));
        }
        if ((v = overrides.get("segment.ms")) != null) {
            c.segmentMs(Long.parseLong(v));
        }
        if ((v = overrides.get("segment.jitter.ms")) != null) {
            c.segmentJitterMs(Long.parseLong(v));
        }
        if ((v = overrides.get("retention.ms")) != null) {
            c.retentionMs(Math.max(LogConfig.UNLIMITED, Long.parseLong(v)));
        }
        if ((v = overrides.get("retention.bytes")) != null) {
            c.retentionBytes(Math.max(LogConfig.UNLIMITED, Long.parseLong(v)));
        }
        if ((v = overrides.get("cleanup.policy")) != null) {
            c.cleanupPolicy(cleanupPolicy("cleanup.policy", v));
        }
        if ((v = overrides.get("file.delete.delay.ms")) != null) {
            c.fileDeleteDelayMs(Long.parseLong(v));
        }
        if ((v = overrides.get("delete.retention.ms")) != null) {
            c.deleteRetentionMs(Long.parseLong(v));
        }
        if ((v = overrides.get("min.cleanable.dirty.ratio")) != null) {
            c.minCleanableDirtyRatio(Double.parseDouble(v));
        }
        if ((v = overrides.get("min.compaction.lag.ms")) != null) {
            c.minCompactionLagMs(Long.parseLong(v));
        }
        if ((v = overrides.get("max.compaction.lag.ms")) != null) {
            c.maxCompactionLagMs(Long.parseLong(v));
        }
        if ((v = overrides.get("message.timestamp.before.max.ms")) != null) {
            c.messageTimestampBeforeMaxMs(Long.parseLong(v));
        }
        if ((v = overrides.get("message.timestamp.after.max.ms")) != null) {
            c.messageTimestampAfterMaxMs(Long.parseLong(v));
        }
        if ((v = overrides.get("remote.storage.enable")) != null) {
            c.remoteStorageEnable(remoteStorageSystemEnable && Boolean.parseBoolean(v.trim()));
        }
        if ((v = overrides.get("local.retention.ms")) != null) {
            c.localRetentionMs(Long.parseLong(v));
        }
        if ((v = overrides.get("local.retention.bytes")) != null) {
            c.localRetentionBytes(Long.parseLong(v));
        }
        if ((v = overrides.get("remote.log.copy.disable")) != null) {
            c.remoteLogCopyDisable(Boolean.parseBoolean(v.trim()));
        }
        if ((v = overrides.get("remote.log.delete.on.disable")) != null) {
            c.remoteLogDeleteOnDisable(Boolean.parseBoolean(v.trim()));
        }
        return c.build();
    }

    private static Set<CleanupPolicy> cleanupPolicy(String key, String list) {
        try {
            return CleanupPolicy.parseList(list);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("Invalid value '" + list + "' for configuration " + key
                    + ": expected a list of delete and compact.");
        }
    }
}

package io.varve.broker.config;

import java.util.Map;

import io.varve.storage.LogConfig;

/** Effective storage config of a topic: its overrides (topic-level keys) over the broker's log.* defaults. */
public final class LogConfigs {
    private final LogConfig brokerDefaults;

    public LogConfigs(BrokerConfig config) {
        this.brokerDefaults = new LogConfig(
                config.logSegmentBytes(),
                config.logIndexIntervalBytes(),
                config.logIndexSizeMaxBytes(),
                config.messageMaxBytes(),
                config.logAppendTime(),
                config.logFlushIntervalMessages(),
                config.logFlushIntervalMs());
    }

    public LogConfig brokerDefaults() {
        return brokerDefaults;
    }

    /** Topic overrides were validated by the controller before they reached the metadata log. */
    public LogConfig forTopic(Map<String, String> overrides) {
        LogConfig c = brokerDefaults;
        String v;
        if ((v = overrides.get("segment.bytes")) != null) {
            c = c.withSegmentBytes(Long.parseLong(v));
        }
        if ((v = overrides.get("index.interval.bytes")) != null) {
            c = c.withIndexIntervalBytes(Integer.parseInt(v));
        }
        if ((v = overrides.get("segment.index.bytes")) != null) {
            c = c.withMaxIndexSizeBytes(Integer.parseInt(v));
        }
        if ((v = overrides.get("max.message.bytes")) != null) {
            c = c.withMaxMessageBytes(Integer.parseInt(v));
        }
        if ((v = overrides.get("message.timestamp.type")) != null) {
            c = c.withLogAppendTime("LogAppendTime".equalsIgnoreCase(v));
        }
        if ((v = overrides.get("flush.messages")) != null) {
            c = c.withFlushMessages(Long.parseLong(v));
        }
        if ((v = overrides.get("flush.ms")) != null) {
            c = c.withFlushMs(Long.parseLong(v));
        }
        return c;
    }
}

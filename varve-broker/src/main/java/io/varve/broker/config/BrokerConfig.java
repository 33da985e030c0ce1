package io.varve.broker.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.varve.broker.config.ConfigDef.Type.BOOLEAN;
import static io.varve.broker.config.ConfigDef.Type.CLASS;
import static io.varve.broker.config.ConfigDef.Type.DOUBLE;
import static io.varve.broker.config.ConfigDef.Type.INT;
import static io.varve.broker.config.ConfigDef.Type.LIST;
import static io.varve.broker.config.ConfigDef.Type.LONG;
import static io.varve.broker.config.ConfigDef.Type.PASSWORD;
import static io.varve.broker.config.ConfigDef.Type.STRING;

/**
 * Broker configuration with Kafka's key names ({@code server.properties}) and Kafka's defaults,
 * except where Varve documents a better default (listeners bind to localhost; data under ./varve-data).
 */
public final class BrokerConfig {
    private static final Logger log = LoggerFactory.getLogger(BrokerConfig.class);

    public static final ConfigDef DEF = new ConfigDef()
            .define("node.id", INT, 1, 0, Integer.MAX_VALUE)
            .define("process.roles", LIST, List.of("broker", "controller"))
            .define("listeners", LIST, List.of("PLAINTEXT://localhost:9092"))
            .define("advertised.listeners", LIST, null)
            .define("listener.security.protocol.map", LIST,
                    List.of("PLAINTEXT:PLAINTEXT", "SSL:SSL", "SASL_PLAINTEXT:SASL_PLAINTEXT", "SASL_SSL:SASL_SSL", "CONTROLLER:PLAINTEXT"))
            .define("controller.listener.names", LIST, List.of("CONTROLLER"))
            .define("inter.broker.listener.name", STRING, null)
            .define("controller.quorum.voters", LIST, List.of())
            .define("controller.quorum.bootstrap.servers", LIST, List.of())
            .define("log.dirs", LIST, null)
            .define("log.dir", STRING, "./varve-data")
            .define("metadata.log.dir", STRING, null)
            .define("num.partitions", INT, 1, 1, Integer.MAX_VALUE)
            .define("default.replication.factor", INT, 1, 1, Short.MAX_VALUE)
            .define("auto.create.topics.enable", BOOLEAN, true)
            .define("delete.topic.enable", BOOLEAN, true)
            .define("message.max.bytes", INT, 1048588, 0, Integer.MAX_VALUE)
            .define("log.segment.bytes", LONG, 1073741824L, 14, Integer.MAX_VALUE)
            .define("log.index.interval.bytes", INT, 4096, 0, Integer.MAX_VALUE)
            .define("log.index.size.max.bytes", INT, 10485760, 4, Integer.MAX_VALUE)
            .define("log.flush.interval.messages", LONG, Long.MAX_VALUE, 1, Long.MAX_VALUE)
            .define("log.flush.interval.ms", LONG, null, 0, Long.MAX_VALUE)
            .defineChoice("log.message.timestamp.type", "CreateTime", "CreateTime", "LogAppendTime")
            .define("socket.request.max.bytes", INT, 104857600, 1, Integer.MAX_VALUE)
            .define("socket.send.buffer.bytes", INT, 102400, -1, Integer.MAX_VALUE)
            .define("socket.receive.buffer.bytes", INT, 102400, -1, Integer.MAX_VALUE)
            .define("connections.max.idle.ms", LONG, 600000L, -1, Long.MAX_VALUE)
            .define("num.network.threads", INT, 3, 1, 256)
            .define("num.io.threads", INT, 8, 1, 256)
            .defineAccepted("queued.max.requests", INT)
            .define("producer.id.block.size", INT, 1000, 1, Integer.MAX_VALUE)
            // Kafka keys Varve accepts today and applies in a later release.
            .defineAccepted("log.retention.hours", INT)
            .defineAccepted("log.retention.minutes", INT)
            .defineAccepted("log.retention.ms", LONG)
            .defineAccepted("log.retention.bytes", LONG)
            .defineAccepted("log.retention.check.interval.ms", LONG)
            .defineAccepted("log.cleanup.policy", LIST)
            .defineAccepted("log.cleaner.enable", BOOLEAN)
            .defineAccepted("log.roll.hours", INT)
            .defineAccepted("log.roll.ms", LONG)
            .defineAccepted("num.recovery.threads.per.data.dir", INT)
            .defineAccepted("offsets.topic.replication.factor", INT)
            .defineAccepted("offsets.topic.num.partitions", INT)
            .defineAccepted("transaction.state.log.replication.factor", INT)
            .defineAccepted("transaction.state.log.min.isr", INT)
            .defineAccepted("group.initial.rebalance.delay.ms", INT)
            .defineAccepted("min.insync.replicas", INT)
            .defineAccepted("compression.type", STRING)
            .defineAccepted("unclean.leader.election.enable", BOOLEAN)
            .defineAccepted("replica.lag.time.max.ms", LONG)
            .defineAccepted("share.coordinator.state.topic.replication.factor", INT)
            .defineAccepted("share.coordinator.state.topic.min.isr", INT)
            .defineAccepted("remote.log.storage.system.enable", BOOLEAN)
            .defineAccepted("log.cleaner.threads", INT)
            .defineAccepted("log.cleaner.min.cleanable.ratio", DOUBLE)
            .defineAccepted("authorizer.class.name", CLASS)
            .defineAccepted("ssl.keystore.password", PASSWORD);

    private final Map<String, String> originals;
    private final Map<String, Object> values;
    private final List<ListenerConfig> listeners;
    private final List<ListenerConfig> advertisedListeners;
    private final List<String> unknownKeys;

    private BrokerConfig(Map<String, String> originals) {
        this.originals = Map.copyOf(originals);
        List<String> unknown = new ArrayList<>();
        this.values = DEF.parse(originals, unknown);
        this.unknownKeys = List.copyOf(unknown);
        Map<String, String> protocolMap = parseProtocolMap(list("listener.security.protocol.map"));
        this.listeners = ListenerConfig.parseList("listeners", list("listeners"), protocolMap);
        if (listeners.isEmpty()) {
            throw new ConfigException("listeners must name at least one listener, for example PLAINTEXT://localhost:9092.");
        }
        List<String> advertised = list("advertised.listeners");
        this.advertisedListeners = advertised == null ? listeners
                : ListenerConfig.parseList("advertised.listeners", advertised, protocolMap);
        for (ListenerConfig l : listeners) {
            if (!l.securityProtocol().equals("PLAINTEXT")) {
                throw new ConfigException("Listener " + l.name() + " uses security protocol " + l.securityProtocol()
                        + ", which Varve does not support yet: use PLAINTEXT.");
            }
        }
        if (logDirs().isEmpty()) {
            throw new ConfigException("log.dirs must name at least one directory.");
        }
    }

    public static BrokerConfig fromMap(Map<String, String> props) {
        return new BrokerConfig(props);
    }

    /** Reads a {@code server.properties} file, then applies {@code key=value} overrides in order. */
    public static BrokerConfig load(Path file, List<String> overrides) {
        Map<String, String> props = new LinkedHashMap<>();
        if (file != null) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException e) {
                throw new ConfigException("Cannot read configuration file " + file + ": " + e.getMessage() + ".");
            }
            p.stringPropertyNames().stream().sorted().forEach(k -> props.put(k, p.getProperty(k)));
        }
        for (String override : overrides) {
            int eq = override.indexOf('=');
            if (eq <= 0) {
                throw new ConfigException("Invalid override '" + override + "': expected key=value.");
            }
            props.put(override.substring(0, eq).trim(), override.substring(eq + 1).trim());
        }
        return new BrokerConfig(props);
    }

    private static Map<String, String> parseProtocolMap(List<String> entries) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String entry : entries) {
            String[] parts = entry.split(":");
            if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
                throw new ConfigException("Invalid entry '" + entry + "' in listener.security.protocol.map: expected NAME:PROTOCOL.");
            }
            map.put(parts[0].trim().toUpperCase(Locale.ROOT), parts[1].trim().toUpperCase(Locale.ROOT));
        }
        return map;
    }

    /** Logs unknown and not-yet-applied keys; called once at start-up. */
    public void logWarnings() {
        for (String key : unknownKeys) {
            log.warn("Unknown configuration key '{}' is ignored.", key);
        }
        for (String key : originals.keySet()) {
            ConfigDef.Key def = DEF.key(key);
            if (def != null && !def.applied()) {
                log.info("Configuration key '{}' is accepted but not applied by this Varve version.", key);
            }
        }
    }

    public List<String> unknownKeys() {
        return unknownKeys;
    }

    public Map<String, String> originals() {
        return originals;
    }

    @SuppressWarnings("unchecked")
    private List<String> list(String key) {
        return (List<String>) values.get(key);
    }

    private int intValue(String key) {
        return (Integer) values.get(key);
    }

    private long longValue(String key) {
        return (Long) values.get(key);
    }

    public int nodeId() {
        return intValue("node.id");
    }

    public List<ListenerConfig> listeners() {
        return listeners;
    }

    /** Client-facing listeners: every listener that is not a controller listener. */
    public List<ListenerConfig> advertisedListeners() {
        return advertisedListeners;
    }

    public List<Path> logDirs() {
        List<String> dirs = list("log.dirs");
        if (dirs == null) {
            dirs = List.of((String) values.get("log.dir"));
        }
        return dirs.stream().map(Path::of).toList();
    }

    public Path metadataLogDir() {
        String dir = (String) values.get("metadata.log.dir");
        return dir == null ? logDirs().get(0) : Path.of(dir);
    }

    public int numPartitions() {
        return intValue("num.partitions");
    }

    public short defaultReplicationFactor() {
        return (short) intValue("default.replication.factor");
    }

    public boolean autoCreateTopicsEnable() {
        return (Boolean) values.get("auto.create.topics.enable");
    }

    public boolean deleteTopicEnable() {
        return (Boolean) values.get("delete.topic.enable");
    }

    public int messageMaxBytes() {
        return intValue("message.max.bytes");
    }

    public long logSegmentBytes() {
        return longValue("log.segment.bytes");
    }

    public int logIndexIntervalBytes() {
        return intValue("log.index.interval.bytes");
    }

    public int logIndexSizeMaxBytes() {
        return intValue("log.index.size.max.bytes");
    }

    public long logFlushIntervalMessages() {
        return longValue("log.flush.interval.messages");
    }

    /** {@code log.flush.interval.ms}; Long.MAX_VALUE when unset (rely on the OS, as Kafka does). */
    public long logFlushIntervalMs() {
        Object v = values.get("log.flush.interval.ms");
        return v == null ? Long.MAX_VALUE : (Long) v;
    }

    public boolean logAppendTime() {
        return "LogAppendTime".equalsIgnoreCase((String) values.get("log.message.timestamp.type"));
    }

    public int socketRequestMaxBytes() {
        return intValue("socket.request.max.bytes");
    }

    public int socketSendBufferBytes() {
        return intValue("socket.send.buffer.bytes");
    }

    public int socketReceiveBufferBytes() {
        return intValue("socket.receive.buffer.bytes");
    }

    public long connectionsMaxIdleMs() {
        return longValue("connections.max.idle.ms");
    }

    public int numNetworkThreads() {
        return intValue("num.network.threads");
    }

    public int numIoThreads() {
        return intValue("num.io.threads");
    }

    public int producerIdBlockSize() {
        return intValue("producer.id.block.size");
    }

    public List<String> controllerListenerNames() {
        return list("controller.listener.names").stream().map(s -> s.toUpperCase(Locale.ROOT)).toList();
    }
}

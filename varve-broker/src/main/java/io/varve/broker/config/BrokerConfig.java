package io.varve.broker.config;

import static io.varve.broker.config.ConfigDef.Type.BOOLEAN;
import static io.varve.broker.config.ConfigDef.Type.CLASS;
import static io.varve.broker.config.ConfigDef.Type.DOUBLE;
import static io.varve.broker.config.ConfigDef.Type.INT;
import static io.varve.broker.config.ConfigDef.Type.LIST;
import static io.varve.broker.config.ConfigDef.Type.LONG;
import static io.varve.broker.config.ConfigDef.Type.STRING;

import io.varve.broker.security.SecurityConfig;
import java.io.IOException;
import java.io.Reader;
import java.net.InetSocketAddress;
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

/**
 * Broker configuration with Kafka's key names ({@code server.properties}) and Kafka's defaults,
 * except where Varve documents a better default (listeners bind to localhost; data under ./varve-data).
 */
public final class BrokerConfig {
    private static final Logger log = LoggerFactory.getLogger(BrokerConfig.class);

    public static final String DEFAULT_HTTP_LISTENER = "http://localhost:9644";

    public static final ConfigDef DEF = new ConfigDef()
            .define("node.id", INT, 1, 0, Integer.MAX_VALUE)
            .define("process.roles", LIST, List.of("broker", "controller"))
            .define("listeners", LIST, List.of("PLAINTEXT://localhost:9092"))
            .define("advertised.listeners", LIST, null)
            // The HTTP listener (/metrics, /health): the syntax of listeners; empty turns it off.
            .define("varve.http.listeners", LIST, List.of(DEFAULT_HTTP_LISTENER))
            // How old /metrics' per-partition and per-group families may be (varve-http/README.md); 0: every scrape.
            .define("varve.metrics.refresh.ms", LONG, 10_000L, 0, Long.MAX_VALUE)
            .define(
                    "listener.security.protocol.map",
                    LIST,
                    List.of(
                            "PLAINTEXT:PLAINTEXT",
                            "SSL:SSL",
                            "SASL_PLAINTEXT:SASL_PLAINTEXT",
                            "SASL_SSL:SASL_SSL",
                            "CONTROLLER:PLAINTEXT"))
            .define("controller.listener.names", LIST, List.of("CONTROLLER"))
            .define("inter.broker.listener.name", STRING, null)
            .define("security.inter.broker.protocol", STRING, null)
            .define("controller.quorum.voters", LIST, List.of())
            .define("controller.quorum.bootstrap.servers", LIST, List.of())
            // Raft timings, Kafka's keys and defaults.
            // Shorter than Kafka's 1000 / 1000 / 2000 (QuorumTimeouts.VARVE_DEFAULTS says why).
            .define("controller.quorum.election.timeout.ms", INT, 500, 1, Integer.MAX_VALUE)
            .define("controller.quorum.election.backoff.max.ms", INT, 250, 1, Integer.MAX_VALUE)
            .define("controller.quorum.fetch.timeout.ms", INT, 1000, 1, Integer.MAX_VALUE)
            .define("controller.quorum.request.timeout.ms", INT, 2000, 1, Integer.MAX_VALUE)
            .define("controller.quorum.retry.backoff.ms", INT, 20, 1, Integer.MAX_VALUE)
            .define("log.dirs", LIST, null)
            .define("log.dir", STRING, "./varve-data")
            .define("metadata.log.dir", STRING, null)
            // Varve's own, retired: earlier releases ran the KRaft-style Raft only with it set to true, which is now
            // the only stack (an old directory is migrated); false is refused rather than silently ignored.
            .define("varve.metadata.raft.core.enable", BOOLEAN, true)
            // Metadata snapshots (KIP-630) and the metadata log's segments, with Kafka's names, defaults and bounds;
            // the new Raft stack honours them. Kafka's internal.metadata.log.segment.bytes lets tests roll small
            // segments below the 8 MiB floor of metadata.log.segment.bytes.
            .define("metadata.log.max.record.bytes.between.snapshots", LONG, 20971520L, 1, Long.MAX_VALUE)
            .define("metadata.log.max.snapshot.interval.ms", LONG, 3600000L, 0, Long.MAX_VALUE)
            .define("metadata.log.segment.bytes", INT, 1073741824, 8388608, Integer.MAX_VALUE)
            .define("internal.metadata.log.segment.bytes", INT, null, 1024, Integer.MAX_VALUE)
            // Broker lifecycle: the rack replicas are spread over, the heartbeat period, the session the controller
            // keeps.
            .define("broker.rack", STRING, null)
            .define("broker.heartbeat.interval.ms", INT, 2000, 1, Integer.MAX_VALUE)
            .define("broker.session.timeout.ms", INT, 9000, 1, Integer.MAX_VALUE)
            .define("num.partitions", INT, 1, 1, Integer.MAX_VALUE)
            .define("default.replication.factor", INT, 1, 1, Short.MAX_VALUE)
            .define("auto.create.topics.enable", BOOLEAN, true)
            // The schema registry's REST listener (Confluent's port); empty turns the registry off.
            .define("varve.schema.registry.listeners", STRING, "http://localhost:8081")
            // The Kafka listener whose TLS settings, users and principals the registry's listener takes; empty: none.
            .define("varve.schema.registry.security.listener", STRING, "")
            // The URL other brokers forward registry writes to; empty: the listener's, with a wildcard host replaced.
            .define("varve.schema.registry.advertised.listener", STRING, "")
            .define("delete.topic.enable", BOOLEAN, true)
            .define("message.max.bytes", INT, 1048588, 0, Integer.MAX_VALUE)
            .define("log.segment.bytes", LONG, 1073741824L, 14, Integer.MAX_VALUE)
            .define("log.index.interval.bytes", INT, 4096, 0, Integer.MAX_VALUE)
            .define("log.index.size.max.bytes", INT, 10485760, 4, Integer.MAX_VALUE)
            .define("log.flush.interval.messages", LONG, Long.MAX_VALUE, 1, Long.MAX_VALUE)
            .define("log.flush.interval.ms", LONG, null, 0, Long.MAX_VALUE)
            .defineChoice("log.message.timestamp.type", "CreateTime", "CreateTime", "LogAppendTime")
            // Retention, rolling, cleaning and timestamp bounds (topic defaults) and the log manager's schedules.
            .define("log.retention.hours", INT, 168)
            .define("log.retention.minutes", INT, null)
            .define("log.retention.ms", LONG, null)
            .define("log.retention.bytes", LONG, -1L)
            .define("log.retention.check.interval.ms", LONG, 300000L, 1, Long.MAX_VALUE)
            .define("log.roll.hours", INT, 168, 1, Integer.MAX_VALUE)
            .define("log.roll.ms", LONG, null, 1, Long.MAX_VALUE)
            .define("log.cleanup.policy", LIST, List.of("delete"))
            .define("log.segment.delete.delay.ms", LONG, 60000L, 0, Long.MAX_VALUE)
            .define("log.cleaner.delete.retention.ms", LONG, 86400000L, 0, Long.MAX_VALUE)
            .define("log.cleaner.min.cleanable.ratio", DOUBLE, 0.5, 0, 1)
            .define("log.cleaner.min.compaction.lag.ms", LONG, 0L, 0, Long.MAX_VALUE)
            .define("log.cleaner.max.compaction.lag.ms", LONG, Long.MAX_VALUE, 1, Long.MAX_VALUE)
            .define("log.cleaner.enable", BOOLEAN, true)
            .define("log.cleaner.threads", INT, 1, 0, Integer.MAX_VALUE)
            .define("log.cleaner.backoff.ms", LONG, 15000L, 0, Long.MAX_VALUE)
            .define("log.cleaner.dedupe.buffer.size", LONG, 134217728L, 1, Long.MAX_VALUE)
            .define("log.message.timestamp.before.max.ms", LONG, Long.MAX_VALUE, 0, Long.MAX_VALUE)
            .define("log.message.timestamp.after.max.ms", LONG, 3600000L, 0, Long.MAX_VALUE)
            .define("log.flush.offset.checkpoint.interval.ms", INT, 60000, 0, Integer.MAX_VALUE)
            .define("replica.high.watermark.checkpoint.interval.ms", LONG, 5000L, 1, Long.MAX_VALUE)
            .define("log.flush.scheduler.interval.ms", LONG, Long.MAX_VALUE)
            .define("producer.id.expiration.ms", INT, 86400000, 1, Integer.MAX_VALUE)
            .define("socket.request.max.bytes", INT, 104857600, 1, Integer.MAX_VALUE)
            .define("socket.send.buffer.bytes", INT, 102400, -1, Integer.MAX_VALUE)
            .define("socket.receive.buffer.bytes", INT, 102400, -1, Integer.MAX_VALUE)
            .define("connections.max.idle.ms", LONG, 600000L, -1, Long.MAX_VALUE)
            .define("max.connections", INT, Integer.MAX_VALUE, 0, Integer.MAX_VALUE)
            .define("max.connections.per.ip", INT, Integer.MAX_VALUE, 0, Integer.MAX_VALUE)
            .define("max.connections.per.ip.overrides", STRING, "")
            .define("max.connection.creation.rate", INT, Integer.MAX_VALUE, 0, Integer.MAX_VALUE)
            .define("quota.window.num", INT, 11, 2, Integer.MAX_VALUE)
            .define("quota.window.size.seconds", INT, 1, 1, Integer.MAX_VALUE)
            .define("num.network.threads", INT, 3, 1, 256)
            .define("num.io.threads", INT, 8, 1, 256)
            .defineAccepted("queued.max.requests", INT)
            .define("producer.id.block.size", INT, 1000, 1, Integer.MAX_VALUE)
            // Varve's own, tests only: drop every n-th Produce response after its append (0: off).
            .define("varve.test.produce.drop.response.every", INT, 0, 0, Integer.MAX_VALUE)
            // Group coordinator (consumer groups and committed offsets).
            .define("offsets.topic.num.partitions", INT, 50, 1, Integer.MAX_VALUE)
            .define("offsets.topic.replication.factor", INT, 3, 1, Short.MAX_VALUE)
            .define("offsets.topic.segment.bytes", INT, 104857600, 1, Integer.MAX_VALUE)
            .define("offsets.retention.minutes", INT, 10080, 1, Integer.MAX_VALUE)
            .define("offsets.retention.check.interval.ms", LONG, 600000L, 1, Long.MAX_VALUE)
            .define("offset.metadata.max.bytes", INT, 4096, 0, Integer.MAX_VALUE)
            .define("group.initial.rebalance.delay.ms", INT, 3000, 0, Integer.MAX_VALUE)
            .define("group.min.session.timeout.ms", INT, 6000, 0, Integer.MAX_VALUE)
            .define("group.max.session.timeout.ms", INT, 1800000, 0, Integer.MAX_VALUE)
            .define("group.max.size", INT, Integer.MAX_VALUE, 1, Integer.MAX_VALUE)
            .define("group.consumer.session.timeout.ms", INT, 45000, 1, Integer.MAX_VALUE)
            .define("group.consumer.min.session.timeout.ms", INT, 45000, 1, Integer.MAX_VALUE)
            .define("group.consumer.max.session.timeout.ms", INT, 60000, 1, Integer.MAX_VALUE)
            .define("group.consumer.heartbeat.interval.ms", INT, 5000, 1, Integer.MAX_VALUE)
            .define("group.consumer.min.heartbeat.interval.ms", INT, 5000, 1, Integer.MAX_VALUE)
            .define("group.consumer.max.heartbeat.interval.ms", INT, 15000, 1, Integer.MAX_VALUE)
            .define("group.consumer.max.size", INT, Integer.MAX_VALUE, 1, Integer.MAX_VALUE)
            .define("group.consumer.assignors", LIST, List.of("uniform", "range"))
            // KIP-932 share groups, Kafka's keys, defaults and bounds
            .define("group.share.session.timeout.ms", INT, 45000, 1, Integer.MAX_VALUE)
            .define("group.share.min.session.timeout.ms", INT, 45000, 1, Integer.MAX_VALUE)
            .define("group.share.max.session.timeout.ms", INT, 60000, 1, Integer.MAX_VALUE)
            .define("group.share.heartbeat.interval.ms", INT, 5000, 1, Integer.MAX_VALUE)
            .define("group.share.min.heartbeat.interval.ms", INT, 5000, 1, Integer.MAX_VALUE)
            .define("group.share.max.heartbeat.interval.ms", INT, 15000, 1, Integer.MAX_VALUE)
            .define("group.share.max.size", INT, 200, 1, 1000)
            .define("group.share.record.lock.duration.ms", INT, 30000, 1, Integer.MAX_VALUE)
            .define("group.share.min.record.lock.duration.ms", INT, 15000, 1, Integer.MAX_VALUE)
            .define("group.share.max.record.lock.duration.ms", INT, 60000, 1, Integer.MAX_VALUE)
            .define("group.share.delivery.count.limit", INT, 5, 2, 10)
            .define("group.share.partition.max.record.locks", INT, 2000, 100, 10000)
            .define("group.share.max.share.sessions", INT, 2000, 1, Integer.MAX_VALUE)
            .define("group.share.assignors", LIST, List.of("simple"))
            .define("group.consumer.migration.policy", STRING, "bidirectional")
            .define("group.coordinator.threads", INT, 4, 1, 64)
            .define("group.streams.session.timeout.ms", INT, 45000, 1, Integer.MAX_VALUE)
            .define("group.streams.min.session.timeout.ms", INT, 45000, 1, Integer.MAX_VALUE)
            .define("group.streams.max.session.timeout.ms", INT, 60000, 1, Integer.MAX_VALUE)
            .define("group.streams.heartbeat.interval.ms", INT, 5000, 1, Integer.MAX_VALUE)
            .define("group.streams.min.heartbeat.interval.ms", INT, 5000, 1, Integer.MAX_VALUE)
            .define("group.streams.max.heartbeat.interval.ms", INT, 15000, 1, Integer.MAX_VALUE)
            .define("group.streams.max.size", INT, Integer.MAX_VALUE, 1, Integer.MAX_VALUE)
            .define("group.streams.num.standby.replicas", INT, 0, 0, Integer.MAX_VALUE)
            .define("group.streams.max.standby.replicas", INT, 2, 0, Integer.MAX_VALUE)
            .define("group.streams.initial.rebalance.delay.ms", INT, 3000, 0, Integer.MAX_VALUE)
            .define("transaction.state.log.num.partitions", INT, 50, 1, Integer.MAX_VALUE)
            .define("transaction.state.log.replication.factor", INT, 3, 1, Short.MAX_VALUE)
            .define("transaction.state.log.segment.bytes", INT, 104857600, 1, Integer.MAX_VALUE)
            .define("transaction.state.log.min.isr", INT, 2, 1, Short.MAX_VALUE)
            .define("transaction.max.timeout.ms", INT, 900000, 1, Integer.MAX_VALUE)
            .define("transaction.abort.timed.out.transaction.cleanup.interval.ms", INT, 10000, 1, Integer.MAX_VALUE)
            // KIP-890 part 1: the partition leader verifies a transactional write with the coordinator first.
            .define("transaction.partition.verification.enable", BOOLEAN, true)
            // Tiered storage (remote log manager, write side). Varve default: on (Kafka: off), with the filesystem
            // backend under <first log dir>-remote, so a topic only needs remote.storage.enable=true.
            .define("remote.log.storage.system.enable", BOOLEAN, true)
            .define("remote.log.storage.manager.class.name", STRING, "filesystem")
            .define("remote.log.storage.manager.impl.prefix", STRING, "rsm.config.")
            .define("remote.log.manager.task.interval.ms", LONG, 30000L, 1, Long.MAX_VALUE)
            .define("remote.log.manager.copier.thread.pool.size", INT, 10, 1, Integer.MAX_VALUE)
            .define("remote.log.manager.copy.max.bytes.per.second", LONG, Long.MAX_VALUE, 1, Long.MAX_VALUE)
            .define("remote.log.manager.task.retry.backoff.ms", LONG, 500L, 1, Long.MAX_VALUE)
            .define("remote.log.manager.task.retry.backoff.max.ms", LONG, 30000L, 1, Long.MAX_VALUE)
            .define("remote.log.manager.task.retry.jitter", DOUBLE, 0.2, 0, 0.5)
            .defineAccepted("remote.log.manager.expiration.thread.pool.size", INT)
            .defineAccepted("remote.log.metadata.manager.class.name", CLASS)
            .define("log.local.retention.ms", LONG, -2L, -2, Long.MAX_VALUE)
            .define("log.local.retention.bytes", LONG, -2L, -2, Long.MAX_VALUE)
            // Tiered storage, read side: Kafka's keys; the chunk cache is Varve's (see io.varve.tiered.read).
            .define("remote.log.reader.threads", INT, 10, 1, Integer.MAX_VALUE)
            .define("remote.log.reader.max.pending.tasks", INT, 100, 1, Integer.MAX_VALUE)
            .define("remote.fetch.max.wait.ms", INT, 500, 1, Integer.MAX_VALUE)
            .define("remote.log.index.file.cache.total.size.bytes", LONG, 1073741824L, 1, Long.MAX_VALUE)
            .define("remote.log.reader.chunk.size.bytes", INT, 4194304, 1024, Integer.MAX_VALUE)
            .define("remote.log.reader.chunk.cache.size.bytes", LONG, 67108864L, 1024, Long.MAX_VALUE)
            // Test-only fault hook of the remote log manager (see RemoteLogManagerConfig.TestPause).
            .define("varve.test.remote.log.pause.at", STRING, null)
            .define("varve.test.remote.log.pause.marker", STRING, null)
            // Replication: Kafka's keys and defaults.
            .define("min.insync.replicas", INT, 1, 1, Integer.MAX_VALUE)
            .define("replica.lag.time.max.ms", LONG, 30000L, 1, Long.MAX_VALUE)
            .define("num.replica.fetchers", INT, 1, 1, Integer.MAX_VALUE)
            .define("replica.fetch.max.bytes", INT, 1048576, 0, Integer.MAX_VALUE)
            .define("replica.fetch.response.max.bytes", INT, 10485760, 0, Integer.MAX_VALUE)
            .define("replica.fetch.wait.max.ms", INT, 500, 0, Integer.MAX_VALUE)
            .define("replica.fetch.min.bytes", INT, 1, 1, Integer.MAX_VALUE)
            .define("replica.fetch.backoff.ms", INT, 1000, 0, Integer.MAX_VALUE)
            // KIP-227 incremental fetch sessions; 0 turns them off (every fetch is answered in full)
            .define("max.incremental.fetch.session.cache.slots", INT, 1000, 0, Integer.MAX_VALUE)
            .define("replica.socket.timeout.ms", INT, 30000, 1, Integer.MAX_VALUE)
            .define(io.varve.broker.replica.selector.ReplicaSelectors.CONFIG, STRING, null)
            // Kafka keys Varve accepts today and applies in a later release.
            .defineAccepted("num.recovery.threads.per.data.dir", INT)
            .defineAccepted("compression.type", STRING)
            .define("unclean.leader.election.enable", BOOLEAN, false)
            // The active controller's leader balancing (Kafka's keys and defaults).
            .define("auto.leader.rebalance.enable", BOOLEAN, true)
            .define("leader.imbalance.check.interval.seconds", LONG, 300L, 1, Long.MAX_VALUE / 1000)
            .define("leader.imbalance.per.broker.percentage", INT, 10, 0, Integer.MAX_VALUE)
            // KIP-932: the share-group state topic (__share_group_state), Kafka's keys and defaults
            .define("share.coordinator.state.topic.num.partitions", INT, 50, 1, Integer.MAX_VALUE)
            .define("share.coordinator.state.topic.replication.factor", INT, 3, 1, Short.MAX_VALUE)
            .define("share.coordinator.state.topic.min.isr", INT, 2, 1, Short.MAX_VALUE)
            .define("share.coordinator.state.topic.segment.bytes", INT, 104857600, 1, Integer.MAX_VALUE);

    private final Map<String, String> originals;
    private final Map<String, Object> values;
    private final List<ListenerConfig> listeners;
    private final List<ListenerConfig> advertisedListeners;
    private final List<io.varve.http.HttpEndpoint> httpListeners;
    private final List<String> unknownKeys;
    private final SecurityConfig security;
    private final io.varve.broker.security.DelegationTokenSettings delegationTokens;

    private BrokerConfig(Map<String, String> originals) {
        this.originals = Map.copyOf(originals);
        List<String> unknown = new ArrayList<>();
        this.values = DEF.parse(originals, unknown);
        // the remote storage backend's own keys (rsm.config.* by default) are passed through, not unknown
        String backendPrefix = (String) values.get("remote.log.storage.manager.impl.prefix");
        unknown.removeIf(key -> key.startsWith(backendPrefix));
        // ssl.*, sasl.*, listener.name.* and the authorizer's keys are SecurityConfig's: read there or refused
        unknown.removeIf(SecurityConfig::owns);
        unknown.removeIf(io.varve.broker.security.DelegationTokenSettings::owns);
        unknown.removeIf(key -> key.startsWith("varve.http.ssl.") || key.equals("varve.http.authentication"));
        this.unknownKeys = List.copyOf(unknown);
        Map<String, String> protocolMap = parseProtocolMap(list("listener.security.protocol.map"));
        this.listeners = ListenerConfig.parseList("listeners", list("listeners"), protocolMap);
        if (listeners.isEmpty()) {
            throw new ConfigException(
                    "listeners must name at least one listener, for example PLAINTEXT://localhost:9092.");
        }
        try {
            this.httpListeners =
                    io.varve.http.HttpEndpoint.parseList("varve.http.listeners", list("varve.http.listeners"));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
        List<String> advertised = list("advertised.listeners");
        this.advertisedListeners = advertised == null
                ? listeners
                : ListenerConfig.parseList("advertised.listeners", advertised, protocolMap);
        if (logDirs().isEmpty()) {
            throw new ConfigException("log.dirs must name at least one directory.");
        }
        if (intValue("replica.fetch.wait.max.ms") >= longValue("replica.lag.time.max.ms")) {
            throw new ConfigException("replica.fetch.wait.max.ms must be less than replica.lag.time.max.ms, or every"
                    + " follower that waits at its leader for data falls out of the ISR.");
        }
        if (intValue("replica.socket.timeout.ms") < intValue("replica.fetch.wait.max.ms")) {
            throw new ConfigException("replica.socket.timeout.ms must be at least replica.fetch.wait.max.ms, or"
                    + " every fetch that waits at its leader for data times out.");
        }
        try {
            replicaSelector();
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
        checkQuorumSettings();
        // The listeners this node connects to itself, each with the key naming its SASL mechanism.
        Map<String, String> ownConnections = new LinkedHashMap<>();
        controllerListenerNames().forEach(n -> ownConnections.put(n, "sasl.mechanism.controller.protocol"));
        String interBroker = namedInterBrokerListener();
        if (interBroker != null) {
            ownConnections.putIfAbsent(interBroker.toUpperCase(Locale.ROOT), "sasl.mechanism.inter.broker.protocol");
        } else if (list("controller.quorum.voters").size() > 1
                || !list("controller.quorum.bootstrap.servers").isEmpty()
                || !processRoles().contains("controller")) {
            // other brokers reach this one on the first broker listener (Kafka's default inter-broker listener)
            clientListeners().stream()
                    .findFirst()
                    .ifPresent(l -> ownConnections.putIfAbsent(l.name(), "sasl.mechanism.inter.broker.protocol"));
        }
        // A broker-only node's controller listener is not among its listeners, but its security keys are used.
        Map<String, String> protocols = parseProtocolMap(list("listener.security.protocol.map"));
        Map<String, String> outgoingOnly = new LinkedHashMap<>();
        ownConnections.keySet().stream()
                .filter(n -> protocols.containsKey(n)
                        && listeners.stream().noneMatch(l -> l.name().equals(n)))
                .forEach(n -> outgoingOnly.put(n, protocols.get(n)));
        this.security = SecurityConfig.parse(originals, listeners, ownConnections, outgoingOnly);
        controllerListeners().forEach(l -> refuseControllerMechanismsBeyondPlain(security.forListener(l.name())));
        this.delegationTokens = io.varve.broker.security.DelegationTokenSettings.from(originals);
    }

    /** {@code delegation.token.*}: off without {@code delegation.token.secret.key}. */
    public io.varve.broker.security.DelegationTokenSettings delegationTokens() {
        return delegationTokens;
    }

    /**
     * A controller's SASL listener authenticates with PLAIN or OAUTHBEARER: SCRAM's credentials live in the metadata
     * log the controller listener serves (Kafka refuses them there too).
     */
    private static void refuseControllerMechanismsBeyondPlain(io.varve.broker.security.ListenerSecurity listener) {
        if (listener.sasl() == null) {
            return;
        }
        for (String mechanism : listener.sasl().enabledMechanisms()) {
            if (!mechanism.equals("PLAIN") && !mechanism.equals("OAUTHBEARER")) {
                throw new ConfigException("sasl.enabled.mechanisms of the controller listener "
                        + listener.listenerName()
                        + " names " + mechanism + ", but a controller listener authenticates with PLAIN or"
                        + " OAUTHBEARER only in this version: set listener.name."
                        + listener.listenerName().toLowerCase(Locale.ROOT)
                        + ".sasl.enabled.mechanisms=PLAIN.");
            }
        }
    }

    /** {@code listener}'s protocol in {@code listener.security.protocol.map} (PLAINTEXT when it maps none). */
    public String securityProtocolOf(String listener) {
        return parseProtocolMap(list("listener.security.protocol.map")).getOrDefault(listener, "PLAINTEXT");
    }

    /** Per listener its security protocol and TLS / SASL settings. */
    public SecurityConfig security() {
        return security;
    }

    /** {@code max.incremental.fetch.session.cache.slots}: fetch sessions this broker keeps (KIP-227); 0: none. */
    public int fetchSessionCacheSlots() {
        return intValue("max.incremental.fetch.session.cache.slots");
    }

    /** {@code replica.lag.time.max.ms}: a follower not caught up for this long leaves the ISR. */
    public long replicaLagTimeMaxMs() {
        return longValue("replica.lag.time.max.ms");
    }

    /** {@code replica.selector.class} (KIP-392); empty: consumers read from the leader only. */
    public java.util.Optional<io.varve.broker.replica.selector.ReplicaSelector> replicaSelector() {
        return io.varve.broker.replica.selector.ReplicaSelectors.forClassName(
                (String) values.get(io.varve.broker.replica.selector.ReplicaSelectors.CONFIG));
    }

    /** The replica fetchers' keys. */
    public io.varve.broker.replica.fetcher.ReplicaFetcherSettings replicaFetcherSettings() {
        return new io.varve.broker.replica.fetcher.ReplicaFetcherSettings(
                intValue("num.replica.fetchers"),
                intValue("replica.fetch.max.bytes"),
                intValue("replica.fetch.response.max.bytes"),
                intValue("replica.fetch.wait.max.ms"),
                intValue("replica.fetch.min.bytes"),
                intValue("replica.fetch.backoff.ms"),
                intValue("replica.socket.timeout.ms"));
    }

    /**
     * The inter-broker listener the config names: {@code inter.broker.listener.name}, or the listener named after
     * {@code security.inter.broker.protocol} (Kafka's older key; both at once is refused, as Kafka refuses it); null
     * when neither is set.
     */
    public String namedInterBrokerListener() {
        String name = (String) values.get("inter.broker.listener.name");
        String protocol = (String) values.get("security.inter.broker.protocol");
        if (name != null && protocol != null) {
            throw new ConfigException("inter.broker.listener.name and security.inter.broker.protocol are both set:"
                    + " set only one of them, as Kafka requires.");
        }
        return name != null ? name : protocol == null ? null : protocol.trim().toUpperCase(Locale.ROOT);
    }

    /**
     * {@code inter.broker.listener.name}: the listener brokers reach each other on (followers fetch there); by
     * default the first listener that is not a controller listener, as in Kafka.
     */
    public String interBrokerListenerName() {
        String name = namedInterBrokerListener();
        return name != null ? name : clientListeners().get(0).name();
    }

    /**
     * By default a combined node (broker and controller), a quorum of one that is its own controller; also several
     * voters named by {@code controller.quorum.voters} (a static quorum) or a dynamic quorum (KIP-853) found through
     * {@code controller.quorum.bootstrap.servers}, and nodes of one role: {@code process.roles=broker} (an observer of
     * the metadata log that registers with the active controller) or {@code =controller} (only the controller
     * listener). Settings that ask for anything else (both kinds of quorum at once, a broker alone on a dynamic quorum),
     * or that contradict each other as Kafka refuses them to, stop the start-up with one sentence naming the key,
     * rather than silently run as something else.
     */
    private void checkQuorumSettings() {
        List<String> roles = processRoles();
        for (String role : roles) {
            if (!role.equals("broker") && !role.equals("controller")) {
                throw new ConfigException(
                        "process.roles has an unknown role '" + role + "': use broker, controller or both.");
            }
        }
        boolean broker = roles.contains("broker");
        boolean controller = roles.contains("controller");
        if (!broker && !controller) {
            throw new ConfigException("process.roles is empty: use broker, controller or both.");
        }
        String rolesText = "process.roles=" + String.join(",", roles);
        List<String> voters = list("controller.quorum.voters");
        if (!(Boolean) values.get("varve.metadata.raft.core.enable")) {
            throw new ConfigException("varve.metadata.raft.core.enable=false asks for the single-voter Raft node, which"
                    + " this release no longer has (it moves such a metadata log onto its Raft log at start-up):"
                    + " remove the key.");
        }
        Map<Integer, InetSocketAddress> voterEndpoints = controllerQuorumVoters();
        if (!controller && !list("controller.quorum.bootstrap.servers").isEmpty()) {
            throw new ConfigException("controller.quorum.bootstrap.servers on " + rolesText + " (a broker observing a"
                    + " dynamic quorum) is not in this release: name the controllers in controller.quorum.voters.");
        }
        if (!controller && voterEndpoints.isEmpty()) {
            throw new ConfigException(rolesText + " needs controller.quorum.voters naming the controllers, for example"
                    + " 1@localhost:9093.");
        }
        if (controller && !voterEndpoints.isEmpty() && !voterEndpoints.containsKey(nodeId())) {
            throw new ConfigException("node.id " + nodeId() + " is not among controller.quorum.voters ("
                    + String.join(",", voters) + "): a controller must be one of the voters.");
        }
        if (!controller && voterEndpoints.containsKey(nodeId())) {
            throw new ConfigException("node.id " + nodeId() + " is among controller.quorum.voters, but " + rolesText
                    + ": a broker-only node must not be a voter.");
        }
        if (controller && controllerListeners().isEmpty() && (voterEndpoints.size() > 1 || !broker)) {
            throw new ConfigException(
                    (broker ? "controller.quorum.voters names " + voterEndpoints.size() + " voters, so" : rolesText)
                            + " listeners needs a listener named in controller.listener.names, for example"
                            + " CONTROLLER://localhost:9093.");
        }
        if (!controller && !controllerListeners().isEmpty()) {
            throw new ConfigException("listeners names the controller listener "
                    + controllerListeners().get(0).name() + ", but " + rolesText
                    + ": a broker-only node serves no controller listener; remove it from listeners.");
        }
        if (!broker && controllerListeners().size() != listeners.size()) {
            throw new ConfigException(
                    "listeners names " + clientListeners().get(0).name()
                            + ", which is not in controller.listener.names, but " + rolesText
                            + " serves only controller listeners.");
        }
        if (!controller) {
            // A broker alone reaches the controllers on their listener: it must know that listener's protocol.
            List<String> names = controllerListenerNames();
            if (names.isEmpty()) {
                throw new ConfigException(rolesText + " needs controller.listener.names naming the controllers'"
                        + " listener, for example CONTROLLER.");
            }
            String protocol =
                    parseProtocolMap(list("listener.security.protocol.map")).get(names.get(0));
            if (protocol == null) {
                throw new ConfigException("controller.listener.names names " + names.get(0)
                        + ", which listener.security.protocol.map does not map to a security protocol: add "
                        + names.get(0) + ":PLAINTEXT.");
            }
        }
        String interBroker = namedInterBrokerListener();
        if (broker
                && interBroker != null
                && clientListeners().stream().noneMatch(l -> l.name().equals(interBroker))) {
            throw new ConfigException("inter.broker.listener.name " + interBroker
                    + " is not a listener of this broker in listeners (controller listeners do not count).");
        }
        int fetchMaxWaitMs = io.varve.raft.core.RaftCoreConfig.defaults(0, "", java.util.Set.of(0))
                .fetchMaxWaitMs();
        if (intValue("controller.quorum.request.timeout.ms") <= fetchMaxWaitMs) {
            throw new ConfigException("controller.quorum.request.timeout.ms must be more than the " + fetchMaxWaitMs
                    + " ms a replica's fetch may wait for new entries at the leader, or every such fetch times out.");
        }
        List<InetSocketAddress> bootstrap = controllerQuorumBootstrapServers();
        if (!bootstrap.isEmpty() && !voterEndpoints.isEmpty()) {
            throw new ConfigException(
                    "controller.quorum.voters and controller.quorum.bootstrap.servers are both set:"
                            + " a static quorum names its voters, a dynamic one (KIP-853) its bootstrap servers; set only one.");
        }
        if (!bootstrap.isEmpty() && controllerListeners().isEmpty()) {
            throw new ConfigException("controller.quorum.bootstrap.servers is set, so listeners needs a listener named"
                    + " in controller.listener.names, for example CONTROLLER://localhost:9093.");
        }
    }

    /** {@code controller.quorum.bootstrap.servers} as addresses, in the order written; empty for a static quorum. */
    public List<InetSocketAddress> controllerQuorumBootstrapServers() {
        List<InetSocketAddress> servers = new ArrayList<>();
        for (String server : list("controller.quorum.bootstrap.servers")) {
            int colon = server.lastIndexOf(':');
            int port;
            try {
                port = Integer.parseInt(server.substring(colon + 1).trim());
            } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                port = -1;
            }
            if (colon < 1 || port <= 0 || port > 65535) {
                throw new ConfigException("controller.quorum.bootstrap.servers entry '" + server
                        + "' is not HOST:PORT, for example localhost:9093.");
            }
            String host = server.substring(0, colon).trim();
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            servers.add(InetSocketAddress.createUnresolved(host, port));
        }
        return servers;
    }

    /** {@code process.roles}: broker, controller or both. */
    public List<String> processRoles() {
        return list("process.roles");
    }

    /** Every listener that is not a controller listener. */
    private List<ListenerConfig> clientListeners() {
        List<ListenerConfig> controllers = controllerListeners();
        return listeners.stream().filter(l -> !controllers.contains(l)).toList();
    }

    /**
     * {@code controller.quorum.voters} as voter id to address, in the order written; empty when unset (this node
     * is the only voter).
     */
    public Map<Integer, InetSocketAddress> controllerQuorumVoters() {
        Map<Integer, InetSocketAddress> voters = new LinkedHashMap<>();
        for (String voter : list("controller.quorum.voters")) {
            int at = voter.indexOf('@');
            int colon = voter.lastIndexOf(':');
            int id;
            int port;
            try {
                id = Integer.parseInt(voter.substring(0, Math.max(at, 0)).trim());
                port = Integer.parseInt(voter.substring(colon + 1).trim());
            } catch (NumberFormatException e) {
                id = -1;
                port = -1;
            }
            if (at <= 0 || colon < at + 2 || id < 0 || port < 0 || port > 65535) {
                throw new ConfigException("controller.quorum.voters entry '" + voter
                        + "' is not ID@HOST:PORT, for example 1@localhost:9093.");
            }
            if (voters.put(id, InetSocketAddress.createUnresolved(voter.substring(at + 1, colon), port)) != null) {
                throw new ConfigException("controller.quorum.voters names voter " + id + " twice.");
            }
        }
        return voters;
    }

    /** The listeners named in {@code controller.listener.names}. */
    public List<ListenerConfig> controllerListeners() {
        List<String> names = controllerListenerNames();
        return listeners.stream().filter(l -> names.contains(l.name())).toList();
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
            props.put(
                    override.substring(0, eq).trim(), override.substring(eq + 1).trim());
        }
        return new BrokerConfig(props);
    }

    private static Map<String, String> parseProtocolMap(List<String> entries) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String entry : entries) {
            String[] parts = entry.split(":");
            if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
                throw new ConfigException(
                        "Invalid entry '" + entry + "' in listener.security.protocol.map: expected NAME:PROTOCOL.");
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

    /** {@code metadata.log.max.record.bytes.between.snapshots}: committed record bytes that make a snapshot due. */
    public long metadataSnapshotMaxRecordBytes() {
        return longValue("metadata.log.max.record.bytes.between.snapshots");
    }

    /** {@code metadata.log.max.snapshot.interval.ms}: a snapshot at least this often when something changed; 0 off. */
    public long metadataSnapshotMaxIntervalMs() {
        return longValue("metadata.log.max.snapshot.interval.ms");
    }

    /** The metadata log's segment size: {@code internal.metadata.log.segment.bytes} if set (tests), else Kafka's key. */
    public int metadataLogSegmentBytes() {
        Object internal = values.get("internal.metadata.log.segment.bytes");
        return internal != null ? (Integer) internal : intValue("metadata.log.segment.bytes");
    }

    /** The {@code controller.quorum.*.ms} timings of the metadata log's Raft. */
    public io.varve.raft.node.QuorumTimeouts quorumTimeouts() {
        return new io.varve.raft.node.QuorumTimeouts(
                intValue("controller.quorum.election.timeout.ms"),
                intValue("controller.quorum.election.backoff.max.ms"),
                intValue("controller.quorum.fetch.timeout.ms"),
                intValue("controller.quorum.request.timeout.ms"),
                intValue("controller.quorum.retry.backoff.ms"));
    }

    /** {@code broker.rack}, or null when unset. */
    public String rack() {
        return (String) values.get("broker.rack");
    }

    public int brokerHeartbeatIntervalMs() {
        return intValue("broker.heartbeat.interval.ms");
    }

    /** {@code unclean.leader.election.enable} and {@code min.insync.replicas}: the controller's own defaults. */
    public io.varve.metadata.controller.replication.ReplicationPolicy replicationPolicy() {
        return new io.varve.metadata.controller.replication.ReplicationPolicy(
                (Boolean) values.get("unclean.leader.election.enable"), intValue("min.insync.replicas"));
    }

    /** {@code auto.leader.rebalance.enable} and {@code leader.imbalance.*}. */
    public io.varve.metadata.controller.ControllerConfig.LeaderRebalance leaderRebalance() {
        return new io.varve.metadata.controller.ControllerConfig.LeaderRebalance(
                (Boolean) values.get("auto.leader.rebalance.enable"),
                1000L * (Long) values.get("leader.imbalance.check.interval.seconds"),
                intValue("leader.imbalance.per.broker.percentage"));
    }

    public int brokerSessionTimeoutMs() {
        return intValue("broker.session.timeout.ms");
    }

    public int numPartitions() {
        return intValue("num.partitions");
    }

    public short defaultReplicationFactor() {
        return (short) intValue("default.replication.factor");
    }

    /** {@code varve.schema.registry.listeners}: the registry's URL, or empty when it is off. */
    public String schemaRegistryListeners() {
        String value = (String) values.get("varve.schema.registry.listeners");
        return value == null ? "" : value.trim();
    }

    /** {@code varve.schema.registry.security.listener}: the Kafka listener whose security the registry shares. */
    public String schemaRegistrySecurityListener() {
        String value = (String) values.get("varve.schema.registry.security.listener");
        return value == null ? "" : value.trim();
    }

    /** {@code varve.schema.registry.advertised.listener}: where other brokers reach this registry; empty: derived. */
    public String schemaRegistryAdvertisedListener() {
        String value = (String) values.get("varve.schema.registry.advertised.listener");
        return value == null ? "" : value.trim();
    }

    /** True when the registry's listener was configured rather than left at its default. */
    public boolean schemaRegistryListenersConfigured() {
        return originals().containsKey("varve.schema.registry.listeners");
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

    /** {@code log.retention.ms}, else {@code log.retention.minutes}, else {@code log.retention.hours}; -1 (unlimited) if negative. */
    public long logRetentionMs() {
        Object ms = values.get("log.retention.ms");
        Object minutes = values.get("log.retention.minutes");
        long millis = ms != null
                ? (Long) ms
                : minutes != null ? 60_000L * (Integer) minutes : 3_600_000L * intValue("log.retention.hours");
        return millis < 0 ? -1 : millis;
    }

    public long logRetentionBytes() {
        return longValue("log.retention.bytes");
    }

    /** {@code log.roll.ms}, else {@code log.roll.hours}. */
    public long logRollMs() {
        Object ms = values.get("log.roll.ms");
        return ms != null ? (Long) ms : 3_600_000L * intValue("log.roll.hours");
    }

    /** {@code log.cleanup.policy} as listed (values are checked where they are parsed, in {@link LogConfigs}). */
    public List<String> logCleanupPolicy() {
        return list("log.cleanup.policy");
    }

    public long logRetentionCheckIntervalMs() {
        return longValue("log.retention.check.interval.ms");
    }

    public long logSegmentDeleteDelayMs() {
        return longValue("log.segment.delete.delay.ms");
    }

    public long logCleanerDeleteRetentionMs() {
        return longValue("log.cleaner.delete.retention.ms");
    }

    public double logCleanerMinCleanableRatio() {
        return (Double) values.get("log.cleaner.min.cleanable.ratio");
    }

    public long logCleanerMinCompactionLagMs() {
        return longValue("log.cleaner.min.compaction.lag.ms");
    }

    public long logCleanerMaxCompactionLagMs() {
        return longValue("log.cleaner.max.compaction.lag.ms");
    }

    public boolean logCleanerEnable() {
        return (Boolean) values.get("log.cleaner.enable");
    }

    public int logCleanerThreads() {
        return intValue("log.cleaner.threads");
    }

    public long logCleanerBackoffMs() {
        return longValue("log.cleaner.backoff.ms");
    }

    public long logCleanerDedupeBufferSize() {
        return longValue("log.cleaner.dedupe.buffer.size");
    }

    public long logMessageTimestampBeforeMaxMs() {
        return longValue("log.message.timestamp.before.max.ms");
    }

    public long logMessageTimestampAfterMaxMs() {
        return longValue("log.message.timestamp.after.max.ms");
    }

    public long logFlushOffsetCheckpointIntervalMs() {
        return intValue("log.flush.offset.checkpoint.interval.ms");
    }

    public long replicaHighWatermarkCheckpointIntervalMs() {
        return longValue("replica.high.watermark.checkpoint.interval.ms");
    }

    public long logFlushSchedulerIntervalMs() {
        return longValue("log.flush.scheduler.interval.ms");
    }

    /** {@code transaction.partition.verification.enable}: KIP-890's verification of transactional writes. */
    public boolean transactionPartitionVerificationEnable() {
        return (Boolean) values.get("transaction.partition.verification.enable");
    }

    public long producerIdExpirationMs() {
        return intValue("producer.id.expiration.ms");
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

    /**
     * {@code max.connections.per.ip.overrides}: {@code host:count} pairs, separated by commas, hosts resolved now;
     * with {@code max.connections.per.ip} and {@code max.connections} the network layer's limits.
     */
    public io.varve.broker.network.ConnectionLimits connectionLimits() {
        Map<java.net.InetAddress, Integer> overrides = new LinkedHashMap<>();
        String text = (String) values.get("max.connections.per.ip.overrides");
        for (String entry : text.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            int colon = entry.lastIndexOf(':');
            try {
                overrides.put(
                        java.net.InetAddress.getByName(entry.substring(0, colon).trim()),
                        Integer.parseInt(entry.substring(colon + 1).trim()));
            } catch (RuntimeException | java.net.UnknownHostException e) {
                throw new ConfigException("Invalid entry '" + entry.trim()
                        + "' in max.connections.per.ip.overrides: expected host:count with a resolvable host.");
            }
        }
        if (intValue("max.connections.per.ip") == 0 && overrides.isEmpty()) {
            throw new ConfigException(
                    "max.connections.per.ip can be 0 only with max.connections.per.ip.overrides naming who may connect.");
        }
        return new io.varve.broker.network.ConnectionLimits(
                intValue("max.connections"), intValue("max.connections.per.ip"), overrides);
    }

    /**
     * {@code max.connection.creation.rate} for a listener: its {@code listener.name.<listener>.} override, else the
     * broker's (per second; {@code Integer.MAX_VALUE}, the default, is unlimited). The broker's does not apply to the
     * inter-broker and controller listeners, as in Kafka: brokers must always reach each other.
     */
    public int maxConnectionCreationRate(String listenerName) {
        String override = originals.get(
                "listener.name." + listenerName.toLowerCase(java.util.Locale.ROOT) + ".max.connection.creation.rate");
        if (override == null) {
            boolean internal = listenerName.equals(interBrokerListenerName())
                    || controllerListenerNames().contains(listenerName);
            return internal ? Integer.MAX_VALUE : intValue("max.connection.creation.rate");
        }
        try {
            int rate = Integer.parseInt(override.trim());
            if (rate < 0) {
                throw new NumberFormatException();
            }
            return rate;
        } catch (NumberFormatException e) {
            throw new ConfigException("Invalid value '" + override + "' for configuration listener.name."
                    + listenerName.toLowerCase(java.util.Locale.ROOT)
                    + ".max.connection.creation.rate: expected a number of connections per second, at least 0.");
        }
    }

    /** {@code quota.window.num}: how many samples a client quota's rate is measured over. */
    public int quotaWindowNum() {
        return intValue("quota.window.num");
    }

    /** {@code quota.window.size.seconds}, in ms: the length of one sample. */
    public long quotaWindowSizeMs() {
        return intValue("quota.window.size.seconds") * 1000L;
    }

    public int numNetworkThreads() {
        return intValue("num.network.threads");
    }

    /**
     * {@code varve.metrics.refresh.ms}: the families of /metrics read from every partition and group are computed at
     * most this often (by the first scrape after they have aged this long); 0 computes them at every scrape.
     */
    public long metricsRefreshMs() {
        return longValue("varve.metrics.refresh.ms");
    }

    /** {@code varve.http.listeners}: where /metrics and /health are served; empty when off. */
    public List<io.varve.http.HttpEndpoint> httpListeners() {
        return httpListeners;
    }

    /**
     * Whether {@code varve.http.listeners} was set: a listener that was asked for and cannot be bound stops the start,
     * while the default one only warns (so several nodes on one host start without each naming a port).
     */
    public boolean httpListenersExplicit() {
        return originals.containsKey("varve.http.listeners");
    }

    public int numIoThreads() {
        return intValue("num.io.threads");
    }

    /** Tests only: every n-th Produce response is dropped and its connection closed (0: never). */
    public int testProduceDropResponseEvery() {
        return intValue("varve.test.produce.drop.response.every");
    }

    /** {@code remote.log.storage.system.enable}: topics with remote.storage.enable=true are tiered. */
    public boolean remoteLogStorageSystemEnable() {
        return (Boolean) values.get("remote.log.storage.system.enable");
    }

    /** Remote log manager keys ({@code remote.log.*}, {@code log.local.retention.*}), typed as defined. */
    public Object remoteLogValue(String key) {
        if (!key.startsWith("remote.log.")
                && !key.startsWith("log.local.retention.")
                && !key.startsWith("varve.test.remote.log.")) {
            throw new IllegalArgumentException(key + " is not a remote log key");
        }
        return values.get(key);
    }

    public int producerIdBlockSize() {
        return intValue("producer.id.block.size");
    }

    /** Group coordinator keys, read by the group runtime (io.varve.broker.group.GroupCoordinatorSettings). */
    public int groupInt(String key) {
        if (!key.startsWith("group.") && !key.startsWith("offset")) {
            throw new IllegalArgumentException(key + " is not a group coordinator key");
        }
        return intValue(key);
    }

    /** The share-group state topic's keys, read by io.varve.broker.share.ShareApis. */
    public int shareStateTopicInt(String key) {
        if (!key.startsWith("share.coordinator.state.topic.")) {
            throw new IllegalArgumentException(key + " is not a share state topic key");
        }
        return intValue(key);
    }

    /** Transaction coordinator keys, read by io.varve.broker.txn.TxnCoordinatorSettings. */
    public int transactionInt(String key) {
        if (!key.startsWith("transaction.")) {
            throw new IllegalArgumentException(key + " is not a transaction coordinator key");
        }
        return intValue(key);
    }

    public long offsetsRetentionCheckIntervalMs() {
        return longValue("offsets.retention.check.interval.ms");
    }

    public String groupConsumerMigrationPolicy() {
        return (String) values.get("group.consumer.migration.policy");
    }

    public List<String> groupConsumerAssignors() {
        return list("group.consumer.assignors");
    }

    public List<String> groupShareAssignors() {
        return list("group.share.assignors");
    }

    public List<String> controllerListenerNames() {
        return list("controller.listener.names").stream()
                .map(s -> s.toUpperCase(Locale.ROOT))
                .toList();
    }
}

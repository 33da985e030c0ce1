package io.varve.broker.registry;

import io.varve.broker.api.ProduceRecordCheck;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.group.CoordinatorTopic;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.replica.ReplicaManager;
import io.varve.registry.SchemaRegistry;
import io.varve.registry.rest.RestServer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the schema registry on a broker: binds {@code varve.schema.registry.listeners} at once (a configured listener
 * that cannot be bound stops the start; the default one, when taken, only turns the registry off with a warning, so
 * several nodes can share a laptop), then replays {@code _schemas} in the background and only then serves requests.
 */
public final class SchemaRegistryWiring implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SchemaRegistryWiring.class);
    private static final long POLL_MS = 20;
    private static final long FOLLOW_INTERVAL_MS = 500;

    private final SchemaRegistry registry;
    private final RestServer server;
    private final CompletableFuture<Void> ready;
    private final Thread loader;

    private SchemaRegistryWiring(
            SchemaRegistry registry, RestServer server, CompletableFuture<Void> ready, Thread loader) {
        this.registry = registry;
        this.server = server;
        this.ready = ready;
        this.loader = loader;
    }

    /**
     * Refuses a {@code varve.schema.registry.listeners} this node cannot use, in one sentence naming the key, before
     * anything else starts; binding it happens later, in {@link #start}.
     */
    public static void checkConfig(BrokerConfig config) {
        String listener = config.schemaRegistryListeners();
        if (listener.isEmpty()) {
            return;
        }
        if (listener.contains(",")) {
            throw new IllegalArgumentException(
                    "varve.schema.registry.listeners: one listener is supported, got '" + listener + "'");
        }
        RestServer.parseListener(listener);
        String advertised = config.schemaRegistryAdvertisedListener();
        if (!advertised.isEmpty()) {
            try {
                RestServer.parseListener(advertised);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("varve.schema.registry.advertised.listener: '" + advertised
                        + "' must be an http:// or https:// URL with a host and a port");
            }
            if (RestServer.isHttps(advertised) != RestServer.isHttps(listener)) {
                throw new IllegalArgumentException("varve.schema.registry.advertised.listener: '" + advertised
                        + "' must use the scheme of varve.schema.registry.listeners ('" + listener + "')");
            }
        }
        RegistrySecurity.of(config, () -> {
            throw new IllegalStateException("not started");
        });
    }

    /** Replicas of {@code _schemas}, capped to the brokers registered when it is created (Confluent's default). */
    static final short SCHEMAS_REPLICATION_FACTOR = 3;

    /** The registry of this node, or null when {@code varve.schema.registry.listeners} is empty or its port taken. */
    public static SchemaRegistryWiring start(
            BrokerConfig config,
            MetadataCache cache,
            ReplicaManager replicaManager,
            ControllerCalls controller,
            java.util.function.Supplier<io.varve.metadata.image.MetadataImage> image) {
        String listener = config.schemaRegistryListeners();
        if (listener.isEmpty()) {
            return null;
        }
        checkConfig(config);
        CoordinatorTopic topic = new CoordinatorTopic(
                SchemasTopicLog.TOPIC,
                config.nodeId(),
                1,
                SCHEMAS_REPLICATION_FACTOR,
                "the registry's own setting (3, as Confluent's kafkastore.topic.replication.factor)",
                2,
                Map.of("cleanup.policy", "compact"),
                cache,
                replicaManager,
                controller);
        java.util.concurrent.atomic.AtomicReference<String> url = new java.util.concurrent.atomic.AtomicReference<>();
        SchemasTopicLog schemaLog = new SchemasTopicLog(topic, replicaManager, config.nodeId(), url::get);
        SchemaRegistry registry = new SchemaRegistry(schemaLog);
        CompletableFuture<Void> ready = new CompletableFuture<>();
        RestServer server;
        try {
            server = RestServer.start(
                    listener,
                    registry,
                    ready,
                    new SchemasWriteRoute(schemaLog, registry, config.nodeId()),
                    RegistrySecurity.of(config, image));
            url.set(advertisedUrl(listener, server.port(), config));
        } catch (IllegalArgumentException e) {
            if (config.schemaRegistryListenersConfigured()) {
                throw e;
            }
            log.warn("{}; the schema registry is off on this node (set the key to choose another)", e.getMessage());
            return null;
        }
        Thread loader = new Thread(() -> load(schemaLog, registry, ready), "varve-registry-replay");
        loader.setDaemon(true);
        loader.start();
        return new SchemaRegistryWiring(registry, server, ready, loader);
    }

    /**
     * The URL other nodes forward writes to: {@code varve.schema.registry.advertised.listener} when set, else the
     * listener's, with the port it bound (for port 0) and, for a wildcard host, the host of this broker's first
     * advertised listener.
     */
    static String advertisedUrl(String listener, int boundPort, BrokerConfig config) {
        if (!config.schemaRegistryAdvertisedListener().isEmpty()) {
            return config.schemaRegistryAdvertisedListener();
        }
        java.net.URI uri = java.net.URI.create(listener.trim());
        String host = uri.getHost();
        if (host == null || host.isEmpty() || host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            host = config.advertisedListeners().isEmpty()
                    ? "localhost"
                    : config.advertisedListeners().get(0).host();
        }
        return uri.getScheme() + "://" + host + ":" + boundPort;
    }

    /**
     * Replays {@code _schemas} when it exists (it is created on the registry's first write), retrying until this
     * node's log of it is open or the node closes.
     */
    private static void load(SchemasTopicLog schemaLog, SchemaRegistry registry, CompletableFuture<Void> ready) {
        long startNanos = System.nanoTime();
        long backoffMs = POLL_MS;
        boolean warned = false;
        while (!Thread.currentThread().isInterrupted()) {
            try {
                if (!schemaLog.replayable()) {
                    throw new IllegalStateException("this node's log of " + SchemasTopicLog.TOPIC + " is not open yet");
                }
                registry.catchUp();
                ready.complete(null);
                log.info(
                        "Schema registry loaded {} subjects from {} in {} ms (highest id {})",
                        registry.state().subjects().size(),
                        SchemasTopicLog.TOPIC,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos),
                        registry.state().maxId());
                follow(schemaLog, registry);
                return;
            } catch (RuntimeException notYet) {
                if (!warned && System.nanoTime() - startNanos > TimeUnit.SECONDS.toNanos(10)) {
                    log.warn(
                            "The schema registry cannot load {} yet ({}); it keeps trying",
                            SchemasTopicLog.TOPIC,
                            notYet.toString());
                    warned = true;
                }
                try {
                    // No event tells when the topic's leader is known: poll with a growing backoff.
                    Thread.sleep(backoffMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                backoffMs = Math.min(1000, backoffMs * 2);
            }
        }
        ready.completeExceptionally(new IllegalStateException("The node closed before the registry loaded"));
    }

    /**
     * Keeps replaying what other nodes wrote (a node that does not lead {@code _schemas} sees the leader's writes
     * through its replica); on the leader each round checks that it has claimed the writer role in its epoch.
     */
    private static void follow(SchemasTopicLog schemaLog, SchemaRegistry registry) {
        String lastProblem = null;
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(FOLLOW_INTERVAL_MS);
                if (schemaLog.leads()) {
                    // A new leader claims at once, so that the others learn where to forward writes.
                    registry.claimWriter();
                } else {
                    registry.catchUp();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                // One line per new failure, not one per round while it lasts.
                String problem = e.toString();
                if (!problem.equals(lastProblem)) {
                    log.warn("Replaying or claiming {} failed ({}); retrying", SchemasTopicLog.TOPIC, problem);
                    lastProblem = problem;
                }
                continue;
            }
            lastProblem = null;
        }
    }

    public SchemaRegistry registry() {
        return registry;
    }

    /** Broker-side schema validation for the produce path. */
    public ProduceRecordCheck validation() {
        return new SchemaValidation(registry);
    }

    public int port() {
        return server.port();
    }

    public CompletableFuture<Void> ready() {
        return ready;
    }

    @Override
    public void close() {
        loader.interrupt();
        server.close();
    }
}

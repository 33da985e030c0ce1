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
    }

    /** Replicas of {@code _schemas}, capped to the brokers registered when it is created (Confluent's default). */
    static final short SCHEMAS_REPLICATION_FACTOR = 3;

    /** The registry of this node, or null when {@code varve.schema.registry.listeners} is empty or its port taken. */
    public static SchemaRegistryWiring start(
            BrokerConfig config, MetadataCache cache, ReplicaManager replicaManager, ControllerCalls controller) {
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
        SchemasTopicLog schemaLog = new SchemasTopicLog(topic, replicaManager);
        SchemaRegistry registry = new SchemaRegistry(schemaLog);
        CompletableFuture<Void> ready = new CompletableFuture<>();
        RestServer server;
        try {
            server = RestServer.start(listener, registry, ready);
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
                follow(registry);
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
     * through its replica); on the writer there is nothing new and each round costs one high-watermark read.
     */
    private static void follow(SchemaRegistry registry) {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(FOLLOW_INTERVAL_MS);
                registry.catchUp();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                log.warn("Replaying {} failed; retrying", SchemasTopicLog.TOPIC, e);
            }
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

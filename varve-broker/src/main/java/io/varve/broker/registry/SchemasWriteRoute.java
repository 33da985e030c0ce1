package io.varve.broker.registry;

import io.varve.registry.RegistryException;
import io.varve.registry.SchemaRegistry;
import io.varve.registry.rest.WriteRoute;
import io.varve.registry.state.RegistryWriter;
import java.net.URI;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The registry's writer on a broker: this node when the metadata names it the leader of {@code _schemas-0}, else the
 * leader, at the URL of its claim in the log (it claims within one replay round of becoming the leader). Waits are
 * bounded: a writer unknown at the end of one gets 50003.
 */
final class SchemasWriteRoute implements WriteRoute {
    /** How long a write waits for the leader's claim to reach this node's copy. */
    static final long CLAIM_WAIT_MS = 15_000;
    /**
     * How long a write whose writer failed waits for another one: long enough for the controller to notice a killed
     * broker (its session timeout, 9 s by default) and elect a new leader, who then claims.
     */
    static final long FAILOVER_WAIT_MS = 30_000;

    private static final long POLL_MS = 25;

    private final SchemasTopicLog schemaLog;
    private final SchemaRegistry registry;
    private final int nodeId;

    SchemasWriteRoute(SchemasTopicLog schemaLog, SchemaRegistry registry, int nodeId) {
        this.schemaLog = schemaLog;
        this.registry = registry;
        this.nodeId = nodeId;
    }

    @Override
    public Optional<URI> remoteWriter() {
        int leader = schemaLog.awaitLeader();
        return leader == nodeId ? Optional.empty() : awaitWriter(null, CLAIM_WAIT_MS);
    }

    @Override
    public Optional<URI> awaitNewWriter(URI failed) {
        return awaitWriter(failed, FAILOVER_WAIT_MS);
    }

    /** The writer's URL once the leader has claimed (and its URL is not {@code excluded}); empty if it is us. */
    private Optional<URI> awaitWriter(URI excluded, long timeoutMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            int leader = schemaLog.leader();
            if (leader == nodeId) {
                return Optional.empty();
            }
            registry.catchUp();
            Optional<RegistryWriter> writer = registry.state().writer();
            if (leader >= 0
                    && writer.isPresent()
                    && writer.get().nodeId() == leader
                    && (excluded == null || !URI.create(writer.get().url()).equals(excluded))) {
                return Optional.of(URI.create(writer.get().url()));
            }
            if (System.nanoTime() >= deadline) {
                throw RegistryException.notWriter("No schema registry writer took over " + SchemasTopicLog.TOPIC
                        + "-0 within " + timeoutMs + " ms (its leader is " + (leader < 0 ? "unknown" : "node " + leader)
                        + ", the last claim "
                        + writer.map(RegistryWriter::toString).orElse("none") + ")");
            }
            try {
                // Leader changes arrive with the metadata and claims with the replica's fetches: poll both.
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw RegistryException.storeError("Interrupted while waiting for the registry's writer");
            }
        }
    }
}

package io.varve.registry.rest;

import java.net.URI;
import java.util.Optional;

/**
 * Where this node's registry sends writes (register, delete, config, mode): nowhere when it takes them itself, else
 * the base URL of the node that does. The broker answers from the metadata of the log's partition and the writer's
 * claim in the log; a registry with one node takes every write ({@link #LOCAL}).
 */
public interface WriteRoute {
    WriteRoute LOCAL = new WriteRoute() {
        @Override
        public Optional<URI> remoteWriter() {
            return Optional.empty();
        }

        @Override
        public Optional<URI> awaitNewWriter(URI failed) {
            return Optional.empty();
        }
    };

    /**
     * Empty when this node takes writes now, else the writer's base URL; waits a bounded time for a writer to be
     * known and throws a {@link io.varve.registry.RegistryException} with 50003 when none is.
     */
    Optional<URI> remoteWriter();

    /**
     * After forwarding to {@code failed} failed (unreachable, or it answered that it no longer writes): waits a
     * bounded time for another writer and returns it (empty when this node is the writer now), or throws 50003.
     */
    Optional<URI> awaitNewWriter(URI failed);
}

package io.varve.http.view;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The read-only view of a node that the HTTP listener shows: the broker implements it over its own state and hands
 * it over at start-up, so this module needs no storage or coordinator classes. Each call answers from the current
 * state and may be called from any thread; none may block for long ({@link #consumerLag()} answers asynchronously).
 */
public interface BrokerView {
    int nodeId();

    String clusterId();

    /** The partitions this node holds a log for. */
    List<PartitionView> partitions();

    ClusterView cluster();

    /** The lag of every group coordinated here, per partition it committed offsets for. */
    CompletableFuture<List<GroupLag>> consumerLag();

    CoordinatorView coordinators();

    /** Operations waiting in each purgatory, by Kafka's {@code delayedOperation} name ({@code Fetch}, {@code Produce}). */
    Map<String, Integer> purgatorySizes();

    /** Counters of tiered storage: bytes copied to and read from remote storage, failed runs (empty when off). */
    Map<String, Long> tieredCounters();

    Readiness readiness();

    /** The ACL check the console applies to a request's principal; everything allowed without an authorizer. */
    default ConsoleAuthorization authorization() {
        return ConsoleAuthorization.ALLOW_ALL;
    }
}

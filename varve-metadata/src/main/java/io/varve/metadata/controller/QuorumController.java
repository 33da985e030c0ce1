package io.varve.metadata.controller;

import io.varve.metadata.MetadataLoader;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.MetadataRecordSerde;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.raft.NotLeaderException;
import io.varve.raft.RaftClosedException;
import io.varve.raft.RaftNode;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active controller: validates requests on one event thread, appends the resulting records to
 * the Raft log, and completes each request once its records are committed and the
 * {@link MetadataLoader} has published the image containing them.
 *
 * <p>Decisions are made against a working image: the committed image plus every record appended
 * but not yet committed, so concurrent requests see each other (two creates of one name: exactly
 * one succeeds). If an append fails, later uncommitted ones fail too (Raft loses them together) and
 * the working image falls back to the committed one.
 *
 * <p>The loader must be registered with the same Raft node.
 */
public final class QuorumController implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(QuorumController.class);
    private static final long CLOSE_TIMEOUT_SECONDS = 30;

    private final ControllerConfig config;
    private final RaftNode raft;
    private final MetadataLoader loader;
    private final TopicControl topicControl;
    private final ProducerIdControl producerIdControl = new ProducerIdControl();
    private final ClusterControl clusterControl = new ClusterControl();
    private final ConfigControl configControl;
    private final ExecutorService eventThread;
    private final AtomicInteger pendingRequests = new AtomicInteger();
    private volatile boolean closed;

    // Confined to the event thread.
    private MetadataImage workingImage = MetadataImage.EMPTY;
    private int uncommittedAppends;

    public QuorumController(ControllerConfig config, RaftNode raft, MetadataLoader loader) {
        this(config, raft, loader, name -> false);
    }

    /**
     * @param staticOnlyBrokerKey true for broker config keys that can only be set in
     *                            {@code server.properties}: dynamic changes of them are refused
     */
    public QuorumController(
            ControllerConfig config, RaftNode raft, MetadataLoader loader, Predicate<String> staticOnlyBrokerKey) {
        this.config = Objects.requireNonNull(config, "config");
        this.configControl = new ConfigControl(staticOnlyBrokerKey);
        this.raft = Objects.requireNonNull(raft, "raft");
        this.loader = Objects.requireNonNull(loader, "loader");
        this.topicControl = new TopicControl(config, new RackAwareReplicaPlacer(), Uuid::randomUuid);
        this.eventThread = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "controller-event-" + raft.nodeId());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Creates topics (or, with {@code validateOnly}, only checks them). One result per requested
     * topic, in request order; all created topics are written as one atomic batch.
     */
    public CompletableFuture<List<CreateTopicResult>> createTopics(
            List<CreateTopicRequest> topics, boolean validateOnly) {
        List<CreateTopicRequest> requests = List.copyOf(topics);
        return submit("createTopics", image -> {
            ControllerResult<List<CreateTopicResult>> result = topicControl.createTopics(image, requests, validateOnly);
            return validateOnly ? ControllerResult.withoutRecords(result.response()) : result;
        });
    }

    /** Deletes topics by name and by id; one result per name, then one per id. */
    public CompletableFuture<List<DeleteTopicResult>> deleteTopics(List<String> names, List<Uuid> ids) {
        List<String> topicNames = List.copyOf(names);
        List<Uuid> topicIds = List.copyOf(ids);
        return submit("deleteTopics", image -> topicControl.deleteTopics(image, topicNames, topicIds));
    }

    /**
     * Adds partitions to existing topics (or, with {@code validateOnly}, only checks the request).
     * One result per requested topic, in request order.
     */
    public CompletableFuture<List<CreatePartitionsResult>> createPartitions(
            List<CreatePartitionsRequest> topics, boolean validateOnly) {
        List<CreatePartitionsRequest> requests = List.copyOf(topics);
        return submit("createPartitions", image -> {
            ControllerResult<List<CreatePartitionsResult>> result = topicControl.createPartitions(image, requests);
            return validateOnly ? ControllerResult.withoutRecords(result.response()) : result;
        });
    }

    /**
     * Applies SET/DELETE/APPEND/SUBTRACT operations to topic and broker configs (broker "" is the
     * cluster-wide default). One result per resource, in the map's iteration order.
     */
    public CompletableFuture<List<AlterConfigResult>> incrementalAlterConfigs(
            Map<ConfigResource, List<ConfigChange>> changes, boolean validateOnly) {
        Map<ConfigResource, List<ConfigChange>> copy = new LinkedHashMap<>();
        changes.forEach((resource, ops) -> copy.put(resource, List.copyOf(ops)));
        return submit("incrementalAlterConfigs", image -> {
                    ControllerResult<List<AlterConfigResult>> result =
                            configControl.incrementalAlterConfigs(image, copy);
                    return validateOnly ? ControllerResult.withoutRecords(result.response()) : result;
                })
                .whenComplete((results, error) -> logAltered(results, validateOnly));
    }

    /**
     * The legacy AlterConfigs: each resource's configs become exactly the given set. One result per
     * resource, in the map's iteration order.
     */
    public CompletableFuture<List<AlterConfigResult>> alterConfigs(
            Map<ConfigResource, Map<String, String>> configs, boolean validateOnly) {
        Map<ConfigResource, Map<String, String>> copy = new LinkedHashMap<>();
        configs.forEach((resource, values) -> copy.put(resource, new HashMap<>(values)));
        return submit("alterConfigs", image -> {
                    ControllerResult<List<AlterConfigResult>> result = configControl.legacyAlterConfigs(image, copy);
                    return validateOnly ? ControllerResult.withoutRecords(result.response()) : result;
                })
                .whenComplete((results, error) -> logAltered(results, validateOnly));
    }

    private static void logAltered(List<AlterConfigResult> results, boolean validateOnly) {
        if (results == null || validateOnly) {
            return;
        }
        results.stream()
                .filter(r -> r.error() == Errors.NONE)
                .forEach(r -> LOG.info(
                        "Altered the configs of {} '{}'",
                        r.resource().type(),
                        r.resource().name()));
    }

    /** Reserves a block of {@code blockSize} producer ids for the broker; returns its first id. */
    public CompletableFuture<Long> allocateProducerIds(int brokerId, int blockSize) {
        return submit("allocateProducerIds", image -> producerIdControl.allocate(image, brokerId, blockSize));
    }

    /** Registers (or re-registers) a broker. */
    public CompletableFuture<Void> registerBroker(RegisterBrokerRecord registration) {
        return submit("registerBroker", image -> clusterControl.registerBroker(image, registration));
    }

    private <T> CompletableFuture<T> submit(String name, Function<MetadataImage, ControllerResult<T>> operation) {
        CompletableFuture<T> response = new CompletableFuture<>();
        if (closed) {
            response.completeExceptionally(new NotControllerException("The controller is shut down"));
            return response;
        }
        if (pendingRequests.incrementAndGet() > config.maxPendingRequests()) {
            pendingRequests.decrementAndGet();
            response.completeExceptionally(new UnknownServerException(
                    "The controller has " + config.maxPendingRequests() + " requests pending; try again later"));
            return response;
        }
        response.whenComplete((value, error) -> pendingRequests.decrementAndGet());
        try {
            eventThread.execute(() -> run(name, operation, response));
        } catch (RejectedExecutionException e) {
            response.completeExceptionally(new NotControllerException("The controller is shut down"));
        }
        return response;
    }

    /** On the event thread: decide, append, and arrange the completion. */
    private <T> void run(
            String name, Function<MetadataImage, ControllerResult<T>> operation, CompletableFuture<T> response) {
        if (uncommittedAppends == 0) {
            workingImage = loader.image(); // nothing in flight: the committed image is the whole truth
        }
        ControllerResult<T> result;
        try {
            result = operation.apply(workingImage);
        } catch (ApiException e) {
            response.completeExceptionally(e);
            return;
        } catch (RuntimeException e) {
            LOG.error("Controller operation {} failed", name, e);
            response.completeExceptionally(new UnknownServerException(name + " failed: " + e.getMessage(), e));
            return;
        }
        if (result.records().isEmpty()) {
            response.complete(result.response());
            return;
        }
        MetadataImage next;
        CompletableFuture<Long> append;
        try {
            MetadataDelta delta = new MetadataDelta(workingImage);
            result.records().forEach(delta::replay);
            next = delta.apply(workingImage.offset());
            append = raft.append(result.records().stream()
                    .map(MetadataRecordSerde::serialize)
                    .toList());
        } catch (IllegalArgumentException e) {
            response.completeExceptionally(
                    new InvalidRequestException(name + " produced an unacceptable batch: " + e.getMessage()));
            return;
        } catch (RuntimeException e) {
            LOG.error("Controller operation {} produced records that cannot be applied", name, e);
            response.completeExceptionally(new UnknownServerException(name + " failed: " + e.getMessage(), e));
            return;
        }
        workingImage = next;
        uncommittedAppends++;
        append.whenComplete((lastOffset, error) -> {
            Runnable completion = () -> onAppendComplete(result.response(), lastOffset, error, response);
            try {
                eventThread.execute(completion);
            } catch (RejectedExecutionException e) {
                completion.run(); // shutting down: the event thread no longer runs; complete anyway
            }
        });
    }

    private <T> void onAppendComplete(T value, Long lastOffset, Throwable error, CompletableFuture<T> response) {
        uncommittedAppends--;
        if (error != null) {
            workingImage = loader.image();
            response.completeExceptionally(toApiException(error));
            return;
        }
        if (loader.image().offset() < lastOffset) {
            response.completeExceptionally(new IllegalStateException("records committed at offset " + lastOffset
                    + " are not in the loader's image (offset " + loader.image().offset()
                    + "): is the loader registered with this Raft node?"));
            return;
        }
        response.complete(value);
    }

    private static Throwable toApiException(Throwable error) {
        Throwable cause =
                error instanceof CompletionException || error instanceof ExecutionException ? error.getCause() : error;
        if (cause instanceof NotLeaderException || cause instanceof RaftClosedException) {
            return new NotControllerException(cause.getMessage());
        }
        if (cause instanceof ApiException) {
            return cause;
        }
        return new UnknownServerException("appending metadata records failed: " + cause.getMessage(), cause);
    }

    /** Stops taking requests; requests already accepted still complete (or fail). */
    @Override
    public void close() {
        closed = true;
        eventThread.shutdown();
        try {
            if (!eventThread.awaitTermination(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn("Controller event thread did not stop within {} s", CLOSE_TIMEOUT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

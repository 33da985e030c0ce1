package io.varve.metadata.controller;

import io.varve.metadata.MetadataLoader;
import io.varve.metadata.controller.cluster.BrokerHeartbeatReply;
import io.varve.metadata.controller.cluster.BrokerHeartbeatRequest;
import io.varve.metadata.controller.cluster.BrokerHeartbeats;
import io.varve.metadata.controller.cluster.BrokerRegistrationReply;
import io.varve.metadata.controller.cluster.BrokerRegistrationRequest;
import io.varve.metadata.controller.cluster.ClusterControl;
import io.varve.metadata.controller.feature.FeatureControl;
import io.varve.metadata.controller.feature.FeatureUpdate;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.metadata.controller.quota.ClientQuotaControl;
import io.varve.metadata.controller.replication.AlterPartitionReply;
import io.varve.metadata.controller.replication.AlterPartitionRequest;
import io.varve.metadata.controller.replication.ElectionControl;
import io.varve.metadata.controller.replication.OngoingReassignment;
import io.varve.metadata.controller.replication.PartitionReassignment;
import io.varve.metadata.controller.replication.PartitionResultError;
import io.varve.metadata.controller.replication.ReassignmentControl;
import io.varve.metadata.controller.replication.ReplicationControl;
import io.varve.metadata.controller.replication.ReplicationControl.ElectionType;
import io.varve.metadata.controller.replication.ReplicationEvents;
import io.varve.metadata.controller.security.AclControl;
import io.varve.metadata.controller.security.DelegationTokenControl;
import io.varve.metadata.controller.security.ScramControl;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.AccessControlEntryRecord;
import io.varve.metadata.record.MetadataRecordSerde;
import io.varve.metadata.record.UserScramCredentialRecord;
import io.varve.raft.MetadataRaft;
import io.varve.raft.NotLeaderException;
import io.varve.raft.RaftClosedException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongSupplier;
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
 * <p>Broker sessions are checked on the event thread every {@link #SESSION_CHECK_INTERVAL_MS} (at
 * most): brokers without a heartbeat for {@code broker.session.timeout.ms} are fenced. The clock is
 * injected; by default a monotonic one.
 *
 * <p>The loader must be registered with the same Raft node.
 */
public final class QuorumController implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(QuorumController.class);
    private static final long CLOSE_TIMEOUT_SECONDS = 30;
    static final long SESSION_CHECK_INTERVAL_MS = 1_000;

    private final ControllerConfig config;
    private final MetadataRaft raft;
    private final MetadataLoader loader;
    private final TopicControl topicControl;
    private final ProducerIdControl producerIdControl = new ProducerIdControl();
    private final ReplicationControl replicationControl;
    private final ElectionControl electionControl;
    private final ReassignmentControl reassignmentControl;
    private final ClusterControl clusterControl;
    private final FeatureControl featureControl = new FeatureControl(SupportedFeatures.THIS_BUILD);
    private final ScramControl scramControl = new ScramControl();
    private final AclControl aclControl = new AclControl();
    private final ClientQuotaControl clientQuotaControl = new ClientQuotaControl();
    /** Replaced once at wiring time with the node's {@code delegation.token.*} settings. */
    private volatile DelegationTokenControl delegationTokenControl = new DelegationTokenControl(
            DelegationTokenControl.Settings.defaults(), () -> Uuid.randomUuid().toString());

    private final Predicate<String> staticOnlyBrokerKey;
    /** Replaced only before serving ({@link #groupConfigBounds}); read on the event thread. */
    private volatile ConfigControl configControl;

    private final LongSupplier clockMs;
    private final ScheduledExecutorService eventThread;
    private final AtomicInteger pendingRequests = new AtomicInteger();
    private volatile boolean closed;

    // Confined to the event thread.
    private MetadataImage workingImage = MetadataImage.EMPTY;
    private int uncommittedAppends;

    public QuorumController(ControllerConfig config, String clusterId, MetadataRaft raft, MetadataLoader loader) {
        this(config, clusterId, raft, loader, name -> false, QuorumController::monotonicMs);
    }

    /**
     * @param clusterId           the cluster brokers must register with
     * @param staticOnlyBrokerKey true for broker config keys that can only be set in
     *                            {@code server.properties}: dynamic changes of them are refused
     * @param clockMs             milliseconds of a monotonic clock, for broker sessions
     */
    public QuorumController(
            ControllerConfig config,
            String clusterId,
            MetadataRaft raft,
            MetadataLoader loader,
            Predicate<String> staticOnlyBrokerKey,
            LongSupplier clockMs) {
        this.config = Objects.requireNonNull(config, "config");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
        this.replicationControl = new ReplicationControl(config.replicationPolicy());
        this.electionControl = new ElectionControl(replicationControl);
        this.reassignmentControl = new ReassignmentControl(replicationControl);
        this.clusterControl = new ClusterControl(
                clusterId, new BrokerHeartbeats(config.brokerSessionTimeoutMs()), replicationControl);
        this.staticOnlyBrokerKey = staticOnlyBrokerKey;
        this.configControl = new ConfigControl(staticOnlyBrokerKey);
        this.raft = Objects.requireNonNull(raft, "raft");
        this.loader = Objects.requireNonNull(loader, "loader");
        this.topicControl = new TopicControl(config, new RackAwareReplicaPlacer(), Uuid::randomUuid);
        this.eventThread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "controller-event-" + raft.nodeId());
            thread.setDaemon(true);
            return thread;
        });
        long checkIntervalMs = Math.max(1, Math.min(SESSION_CHECK_INTERVAL_MS, config.brokerSessionTimeoutMs() / 2));
        eventThread.scheduleWithFixedDelay(
                this::checkBrokerSessions, checkIntervalMs, checkIntervalMs, TimeUnit.MILLISECONDS);
        ControllerConfig.LeaderRebalance rebalance = config.leaderRebalance();
        if (rebalance.enabled()) {
            eventThread.scheduleWithFixedDelay(
                    () -> {
                        if (!closed && raft.leaderId() == raft.nodeId()) {
                            rebalanceLeaders();
                        }
                    },
                    rebalance.checkIntervalMs(),
                    rebalance.checkIntervalMs(),
                    TimeUnit.MILLISECONDS);
        }
    }

    private static long monotonicMs() {
        return System.nanoTime() / 1_000_000;
    }

    /** On the event thread: fences brokers whose session ran out. */
    private void checkBrokerSessions() {
        if (closed || loader.image().cluster().brokers().isEmpty()) {
            return;
        }
        if (raft.leaderId() != raft.nodeId()) {
            // A standby hears no heartbeats: sessions are the active controller's soft state. Forgetting them here
            // gives every broker a fresh session when this controller takes over, instead of fencing them all.
            clusterControl.heartbeats().forgetAll();
            return;
        }
        CompletableFuture<List<Integer>> fenced = new CompletableFuture<>();
        fenced.whenComplete((ids, error) -> {
            if (ids != null && !ids.isEmpty()) {
                LOG.warn(
                        "Fenced broker(s) {}: no heartbeat for {} ms (broker.session.timeout.ms), or none since its"
                                + " controller connection closed",
                        ids,
                        config.brokerSessionTimeoutMs());
            }
        });
        run("fenceExpiredBrokers", image -> clusterControl.fenceExpiredBrokers(image, clockMs.getAsLong()), fenced);
    }

    /**
     * The connection broker {@code brokerId} heartbeats on closed without a controlled shutdown: unless it heartbeats
     * again within {@code graceMs} (a live broker reconnects within its heartbeat interval), it is fenced then, not
     * only after {@code broker.session.timeout.ms}. A crashed broker's leaderships move in about {@code graceMs}.
     * A pause or a network cut closes no connection: those still wait for the session timeout.
     */
    public void brokerConnectionLost(int brokerId, long graceMs) {
        if (closed) {
            return;
        }
        try {
            eventThread.execute(() -> {
                if (closed || raft.leaderId() != raft.nodeId()) {
                    return;
                }
                if (clusterControl.heartbeats().connectionLost(brokerId, clockMs.getAsLong(), graceMs)) {
                    LOG.info(
                            "The controller connection of broker {} closed; it is fenced unless it heartbeats within {} ms",
                            brokerId,
                            graceMs);
                    eventThread.schedule(this::checkBrokerSessions, graceMs + 1, TimeUnit.MILLISECONDS);
                }
            });
        } catch (RejectedExecutionException e) {
            // shut down meanwhile: nothing to fence
        }
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

    private void logAltered(List<AlterConfigResult> results, boolean validateOnly) {
        if (results == null || validateOnly) {
            return;
        }
        if (results.stream().anyMatch(r -> r.error() == Errors.NONE)) {
            // unclean.leader.election.enable or min.insync.replicas may have changed.
            applyElectionRules();
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

    /**
     * BrokerRegistration: registers a broker (fenced) or a new incarnation of it. The reply carries the
     * broker epoch to quote in heartbeats, or the error.
     */
    public CompletableFuture<BrokerRegistrationReply> registerBroker(BrokerRegistrationRequest request) {
        return submit("registerBroker", image -> clusterControl.register(image, request, clockMs.getAsLong()))
                .whenComplete((reply, error) -> {
                    if (reply != null && reply.error() == Errors.NONE) {
                        LOG.info("Broker {} registered with epoch {}", request.brokerId(), reply.brokerEpoch());
                    }
                });
    }

    /** BrokerHeartbeat: keeps the session, unfences a caught-up broker, runs controlled shutdown. */
    public CompletableFuture<BrokerHeartbeatReply> brokerHeartbeat(BrokerHeartbeatRequest request) {
        return submit("brokerHeartbeat", image -> {
            boolean wasFenced = image.cluster().broker(request.brokerId()) != null
                    && image.cluster().broker(request.brokerId()).fenced();
            ControllerResult<BrokerHeartbeatReply> result =
                    clusterControl.heartbeat(image, request, clockMs.getAsLong());
            BrokerHeartbeatReply reply = result.response();
            if (reply.error() == Errors.NONE && wasFenced != reply.isFenced()) {
                LOG.info("Broker {} is now {}", request.brokerId(), reply.isFenced() ? "fenced" : "unfenced");
            }
            return result;
        });
    }

    /** UnregisterBroker: moves leaderships off the broker and removes its registration. */
    public CompletableFuture<ErrorReply> unregisterBroker(int brokerId) {
        return submit("unregisterBroker", image -> clusterControl.unregister(image, brokerId));
    }

    /** AlterPartition: a leader's ISR changes, validated against leader and partition epochs. */
    public CompletableFuture<AlterPartitionReply> alterPartition(AlterPartitionRequest request) {
        return submit("alterPartition", image -> replicationControl.alterPartition(image, request));
    }

    /**
     * ElectLeaders: PREFERRED or UNCLEAN elections of the listed partitions ({@code partitions} null: all of
     * them, reporting only those that needed one). One result per partition.
     */
    public CompletableFuture<List<PartitionResultError>> electLeaders(
            ElectionType type, Map<String, List<Integer>> partitions) {
        Map<String, List<Integer>> copy = partitions == null ? null : new LinkedHashMap<>(partitions);
        return submit("electLeaders", image -> electionControl.electLeaders(image, type, copy));
    }

    /**
     * The automatic preferred-leader rebalance ({@code auto.leader.rebalance.enable}), run by the timer every
     * {@code leader.imbalance.check.interval.seconds} on the active controller; the number of elections.
     */
    public CompletableFuture<Integer> rebalanceLeaders() {
        int percentage = config.leaderRebalance().imbalancePerBrokerPercentage();
        return submit("rebalanceLeaders", image -> {
                    List<io.varve.metadata.record.MetadataRecord> records =
                            electionControl.rebalance(image, percentage);
                    return ControllerResult.of(records, records.size());
                })
                .whenComplete((elections, error) -> {
                    if (elections != null && elections > 0) {
                        LOG.info(
                                "Moved {} leadership(s) back to their preferred replicas (auto.leader.rebalance)",
                                elections);
                    }
                });
    }

    /** Brings every partition in line with the election rules after they changed (configs, the ELR feature). */
    private void applyElectionRules() {
        submit("applyElectionRules", image -> ControllerResult.of(replicationControl.applyElectionRules(image), null));
    }

    /** AlterPartitionReassignments: starts, replaces or cancels (null target) reassignments; one result each. */
    public CompletableFuture<List<PartitionResultError>> alterPartitionReassignments(
            List<PartitionReassignment> reassignments, boolean allowReplicationFactorChange) {
        List<PartitionReassignment> copy = List.copyOf(reassignments);
        return submit(
                "alterPartitionReassignments",
                image -> reassignmentControl.alter(image, copy, allowReplicationFactorChange));
    }

    /** ListPartitionReassignments: the reassignments in progress, of the listed partitions or (null) all. */
    public CompletableFuture<List<OngoingReassignment>> listPartitionReassignments(
            Map<String, List<Integer>> partitions) {
        Map<String, List<Integer>> copy = partitions == null ? null : new LinkedHashMap<>(partitions);
        return submit(
                "listPartitionReassignments",
                image -> ControllerResult.withoutRecords(reassignmentControl.list(image, copy)));
    }

    /** UpdateFeatures: finalizes feature levels every registered broker supports; all or nothing. */
    public CompletableFuture<ErrorReply> updateFeatures(Map<String, FeatureUpdate> updates, boolean validateOnly) {
        Map<String, FeatureUpdate> copy = Map.copyOf(updates);
        return submit("updateFeatures", image -> featureControl.updateFeatures(image, copy, validateOnly))
                .whenComplete((reply, error) -> {
                    if (!validateOnly && reply != null && reply.error() == Errors.NONE) {
                        applyElectionRules(); // eligible.leader.replicas.version may have gone up or down
                    }
                });
    }

    /** AlterUserScramCredentials: per user, its deletions and upsertions together or not at all. */
    public CompletableFuture<Map<String, ErrorReply>> alterUserScramCredentials(
            List<ScramControl.Deletion> deletions, List<UserScramCredentialRecord> upsertions) {
        List<ScramControl.Deletion> d = List.copyOf(deletions);
        List<UserScramCredentialRecord> u = List.copyOf(upsertions);
        return submit("alterUserScramCredentials", image -> scramControl.alter(image, d, u));
    }

    /** CreateAcls: the ACLs not present yet are written. */
    public CompletableFuture<Void> createAcls(List<AccessControlEntryRecord> acls) {
        List<AccessControlEntryRecord> copy = List.copyOf(acls);
        return submit("createAcls", image -> aclControl.create(image, copy));
    }

    /** DeleteAcls: per filter the ACLs it matched, all removed. */
    public CompletableFuture<List<List<AccessControlEntryRecord>>> deleteAcls(
            List<java.util.function.Predicate<AccessControlEntryRecord>> filters) {
        List<java.util.function.Predicate<AccessControlEntryRecord>> copy = List.copyOf(filters);
        return submit("deleteAcls", image -> aclControl.delete(image, copy));
    }

    /** AlterClientQuotas: per entry its result; each entry applies whole or not at all. */
    public CompletableFuture<List<ErrorReply>> alterClientQuotas(
            List<ClientQuotaControl.Entry> entries, boolean validateOnly) {
        List<ClientQuotaControl.Entry> copy = List.copyOf(entries);
        return submit("alterClientQuotas", image -> clientQuotaControl.alter(image, copy, validateOnly));
    }

    /** The node's {@code group.*} bounds that a group's own configs are checked against; set before serving. */
    public void groupConfigBounds(io.varve.metadata.config.GroupConfigBounds bounds) {
        configControl = new ConfigControl(staticOnlyBrokerKey, bounds);
    }

    /** {@code delegation.token.max.lifetime.ms} and {@code delegation.token.expiry.time.ms}; set before serving. */
    public void delegationTokenSettings(DelegationTokenControl.Settings settings) {
        delegationTokenControl =
                new DelegationTokenControl(settings, () -> Uuid.randomUuid().toString());
    }

    /** CreateDelegationToken, authorized by the caller; {@code nowMs} is the wall clock's epoch ms. */
    public CompletableFuture<DelegationTokenControl.Created> createDelegationToken(
            String owner, String requester, List<String> renewers, long maxLifetimeMs, long nowMs) {
        List<String> copy = List.copyOf(renewers);
        DelegationTokenControl control = delegationTokenControl;
        return submit(
                "createDelegationToken", image -> control.create(image, owner, requester, copy, maxLifetimeMs, nowMs));
    }

    /** RenewDelegationToken of the token the caller found by its HMAC. */
    public CompletableFuture<DelegationTokenControl.Expiry> renewDelegationToken(
            String tokenId, String principal, long renewPeriodMs, long nowMs) {
        DelegationTokenControl control = delegationTokenControl;
        return submit("renewDelegationToken", image -> control.renew(image, tokenId, principal, renewPeriodMs, nowMs));
    }

    /** ExpireDelegationToken of the token the caller found by its HMAC. */
    public CompletableFuture<DelegationTokenControl.Expiry> expireDelegationToken(
            String tokenId, String principal, long expiryPeriodMs, long nowMs) {
        DelegationTokenControl control = delegationTokenControl;
        return submit(
                "expireDelegationToken", image -> control.expire(image, tokenId, principal, expiryPeriodMs, nowMs));
    }

    /** Removes the tokens past their expiry (the periodic check); completes with their number. */
    public CompletableFuture<Integer> removeExpiredDelegationTokens(long nowMs) {
        DelegationTokenControl control = delegationTokenControl;
        return submit("removeExpiredDelegationTokens", image -> control.removeExpired(image, nowMs));
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
        // Read before the image: the Raft log announces this node as leader only once the loader holds every entry
        // before its epoch, so an image read after seeing the announcement is not missing the last epoch's writes.
        boolean announcedLeader = raft.leaderId() == raft.nodeId();
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
        if (result.records().size() > MetadataRaft.MAX_BATCH_PAYLOADS) {
            // One request is one atomic batch; refuse it whole rather than fail the append (Kafka: KAFKA-14996).
            response.completeExceptionally(new org.apache.kafka.common.errors.PolicyViolationException(
                    "Excessively large number of records per request: "
                            + result.records().size() + " (at most " + MetadataRaft.MAX_BATCH_PAYLOADS + ")."));
            return;
        }
        if (!announcedLeader) {
            response.completeExceptionally(new NotControllerException("Node " + raft.nodeId()
                    + " is not the active controller; the quorum's leader is " + raft.leaderId()));
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
        List<String> uncleanElections = ReplicationEvents.uncleanElections(workingImage, result.records());
        List<String> reassignments = ReplicationEvents.reassignments(workingImage, result.records());
        workingImage = next;
        uncommittedAppends++;
        append.whenComplete((lastOffset, error) -> {
            if (error == null) {
                uncleanElections.forEach(line -> LOG.warn("Unclean leader election: {}", line));
                reassignments.forEach(LOG::info);
            }
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

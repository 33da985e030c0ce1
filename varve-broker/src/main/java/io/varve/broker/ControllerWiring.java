package io.varve.broker;

import io.varve.broker.api.KafkaRequestDispatcher;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.BrokerConfigLayers;
import io.varve.broker.controller.ControllerApis;
import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.controller.ControllerRouter;
import io.varve.broker.network.ConnectionInfo;
import io.varve.broker.network.RequestDispatcher;
import io.varve.broker.network.ResponseFrame;
import io.varve.broker.security.BootstrapScramCredentials;
import io.varve.metadata.MetadataLoader;
import io.varve.metadata.controller.ControllerConfig;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.raft.MetadataRaft;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The node's controller (when {@code process.roles} has it) and the way to the active controller (every node): the
 * {@link QuorumController} on the metadata log, its APIs on the controller listener when the node serves one, and
 * the {@link ControllerRouter} that everything asking the controller goes through, with the {@link ControllerCalls}
 * for the broker's own requests. Kept apart from {@link Broker} so the start-up order there stays readable.
 */
final class ControllerWiring implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ControllerWiring.class);
    /**
     * A broker whose heartbeat connection closed has its heartbeat interval plus this to heartbeat again on a new one
     * before it is fenced: room for a reconnect on a busy machine, far below broker.session.timeout.ms.
     */
    static final long CONNECTION_LOSS_MARGIN_MS = 1000;

    /** Null unless this node is a controller. */
    final QuorumController controller;

    final ControllerRouter router;
    final ControllerCalls calls;
    private final ScheduledExecutorService retries;
    private final MetadataRaft raft;
    /** Null until a multi-voter node starts watching for a new cluster's first leader. */
    private volatile java.util.concurrent.ScheduledFuture<?> featureBootstrap;

    private ControllerWiring(
            QuorumController controller, ControllerRouter router, ScheduledExecutorService retries, MetadataRaft raft) {
        this.controller = controller;
        this.router = router;
        this.calls = new ControllerCalls(router);
        this.retries = retries;
        this.raft = raft;
    }

    /** After the metadata log started and replayed: the controller decides against the loader's image. */
    static ControllerWiring start(
            BrokerConfig config,
            String clusterId,
            MetadataLogs logs,
            MetadataRaft raft,
            MetadataLoader loader,
            Executor requestExecutor) {
        int nodeId = config.nodeId();
        QuorumController controller = null;
        ControllerApis apis = null;
        if (config.processRoles().contains("controller")) {
            controller = new QuorumController(
                    new ControllerConfig(config.numPartitions(), config.defaultReplicationFactor())
                            .withBrokerSessionTimeoutMs(config.brokerSessionTimeoutMs())
                            .withReplicationPolicy(config.replicationPolicy())
                            .withLeaderRebalance(config.leaderRebalance()),
                    clusterId,
                    raft,
                    loader,
                    BrokerConfigLayers::isStaticOnly,
                    () -> System.nanoTime() / 1_000_000);
            apis = new ControllerApis(
                    nodeId,
                    clusterId,
                    controller,
                    raft,
                    loader,
                    () -> logs.controllers(config),
                    config.deleteTopicEnable(),
                    config.producerIdBlockSize(),
                    config.brokerHeartbeatIntervalMs() + CONNECTION_LOSS_MARGIN_MS);
            controller.delegationTokenSettings(config.delegationTokens().lifetimes());
            controller.groupConfigBounds(io.varve.broker.group.GroupConfigResolver.bounds(config));
            apis.serveDelegationTokens(config.delegationTokens(), loader, System::currentTimeMillis);
            if (logs.raftRequests() != null) {
                apis.serveRaftAdmin(new io.varve.broker.api.quorum.RaftAdminHandler(logs.raftRequests()));
            }
            if (logs.servesControllerListener()) {
                // With an authorizer the controller listener checks what a broker listener checks (an Envelope, like
                // the brokers' own APIs, needs CLUSTER_ACTION), and an Envelope's request is checked as its client.
                io.varve.broker.security.AuthorizationHook authorization = controllerAuthorization(config, loader);
                apis.authorizeEnvelopesWith(authorization);
                logs.authorizeRaftWith(authorization == null ? null : authorization.authorizer());
                RequestDispatcher requests = new KafkaRequestDispatcher(
                        apis.apis(), apis.apiVersions(), requestExecutor, null, null, authorization);
                ControllerApis served = apis;
                logs.serveControllerApis(new RequestDispatcher() {
                    @Override
                    public CompletableFuture<ResponseFrame> dispatch(ByteBuffer frame, ConnectionInfo connection) {
                        return requests.dispatch(frame, connection);
                    }

                    @Override
                    public void connectionClosed(ConnectionInfo connection) {
                        served.connectionClosed(connection.remoteAddress());
                    }
                });
            }
        }
        ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "varve-controller-retries");
            t.setDaemon(true);
            return t;
        });
        ControllerRouter router = new ControllerRouter(
                nodeId,
                apis,
                raft::leaderId,
                id -> logs.controllerAddress(config, id),
                retries,
                () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime()),
                ControllerRouter.Settings.defaults(),
                config.socketRequestMaxBytes(),
                io.varve.broker.network.client.ClientSecurity.forController(config));
        if (controller != null && config.delegationTokens().enabled()) {
            removeExpiredTokensPeriodically(
                    controller, raft, retries, config.delegationTokens().expiryCheckIntervalMs());
        }
        return new ControllerWiring(controller, router, retries, raft);
    }

    /** {@code delegation.token.expiry.check.interval.ms}: the active controller removes tokens past their expiry. */
    private static void removeExpiredTokensPeriodically(
            QuorumController controller, MetadataRaft raft, ScheduledExecutorService timer, long intervalMs) {
        timer.scheduleWithFixedDelay(
                () -> {
                    if (raft.leaderId() != raft.nodeId()) {
                        return;
                    }
                    controller
                            .removeExpiredDelegationTokens(System.currentTimeMillis())
                            .whenComplete((removed, error) -> {
                                if (error != null) {
                                    LOG.debug("Removing expired delegation tokens failed: {}", error.toString());
                                } else if (removed > 0) {
                                    LOG.info("Removed {} expired delegation token(s)", removed);
                                }
                            });
                },
                intervalMs,
                intervalMs,
                TimeUnit.MILLISECONDS);
    }

    /** The controller's authorization against its own image, or null without {@code authorizer.class.name}. */
    private static io.varve.broker.security.AuthorizationHook controllerAuthorization(
            BrokerConfig config, MetadataLoader loader) {
        var settings = config.security().authorization();
        return settings == null
                ? null
                : new io.varve.broker.security.AuthorizationHook(new io.varve.broker.security.BrokerAuthorizer(
                        loader::image, settings.superUsers(), settings.allowEveryoneIfNoAclFound()));
    }

    /**
     * A new cluster finalizes the feature levels a Kafka 4.x cluster starts with, as far as this build supports them:
     * those of {@link BootstrapFeatures} (metadata.version at this build's highest, group.version 1,
     * eligible.leader.replicas.version 1, transaction.version 2, or what {@code varve format --feature} chose). Once written, they change only through UpdateFeatures. A lone voter does it before
     * the node serves; with several voters, whichever controller leads the new cluster first does it.
     */
    void finalizeInitialFeatures(BrokerConfig config, MetadataLoader loader) throws Exception {
        if (controller == null || loader.image().features().level(SupportedFeatures.METADATA_VERSION) > 0) {
            return;
        }
        bootstrapScram = BootstrapScramCredentials.read(config.metadataLogDir());
        bootstrapLevels = BootstrapFeatures.read(config.metadataLogDir());
        if (config.controllerQuorumVoters().size() > 1
                || !config.controllerQuorumBootstrapServers().isEmpty()) {
            // Several controllers (or a dynamic quorum, which may grow): which one leads first is not known at
            // start, so each checks until the levels are in.
            featureBootstrap = retries.scheduleWithFixedDelay(
                    () -> finalizeIfLeading(loader), 0, FEATURE_BOOTSTRAP_CHECK_MS, TimeUnit.MILLISECONDS);
            return;
        }
        writeBootstrapScram();
        io.varve.metadata.controller.ErrorReply reply =
                controller.updateFeatures(initialLevels(), false).get(30, TimeUnit.SECONDS);
        if (reply.error() != org.apache.kafka.common.protocol.Errors.NONE) {
            throw new IllegalStateException("Finalizing the initial feature levels " + initialLevels() + " failed: "
                    + reply.error() + " " + reply.message());
        }
        LOG.info("New cluster: finalized {}", initialLevels().keySet());
    }

    private static final long FEATURE_BOOTSTRAP_CHECK_MS = 200;

    /** The SCRAM users of {@code varve format --add-scram}; written with the initial feature levels. */
    private volatile List<io.varve.metadata.record.UserScramCredentialRecord> bootstrapScram = List.of();

    /**
     * Before the feature levels, which mark the cluster as bootstrapped: a controller that fails between the two
     * writes them again as an upsert of the same credentials.
     */
    private void writeBootstrapScram() throws Exception {
        List<io.varve.metadata.record.UserScramCredentialRecord> records = bootstrapScram;
        if (records.isEmpty()) {
            return;
        }
        Map<String, io.varve.metadata.controller.ErrorReply> replies =
                controller.alterUserScramCredentials(List.of(), records).get(30, TimeUnit.SECONDS);
        for (Map.Entry<String, io.varve.metadata.controller.ErrorReply> reply : replies.entrySet()) {
            if (reply.getValue().error() != org.apache.kafka.common.protocol.Errors.NONE) {
                throw new IllegalStateException("Writing the SCRAM credentials of user " + reply.getKey()
                        + " given at format time failed: " + reply.getValue().error() + " "
                        + reply.getValue().message());
            }
        }
        LOG.info(
                "New cluster: wrote the SCRAM credentials given at format time for users {}",
                records.stream().map(r -> r.name()).distinct().toList());
    }

    /** On the retries thread: once this node leads a cluster with no metadata.version yet, finalize the levels. */
    private void finalizeIfLeading(MetadataLoader loader) {
        if (loader.image().features().level(SupportedFeatures.METADATA_VERSION) > 0) {
            java.util.concurrent.ScheduledFuture<?> task = featureBootstrap;
            if (task != null) {
                task.cancel(false);
            }
            return;
        }
        if (raft.leaderId() != raft.nodeId()) {
            return;
        }
        try {
            writeBootstrapScram();
            // Same levels again are no change, so two leaders in a row doing this is harmless.
            io.varve.metadata.controller.ErrorReply reply =
                    controller.updateFeatures(initialLevels(), false).get(30, TimeUnit.SECONDS);
            if (reply.error() == org.apache.kafka.common.protocol.Errors.NONE) {
                LOG.info(
                        "New cluster: finalized {} as its first active controller",
                        initialLevels().keySet());
            } else {
                LOG.info(
                        "Finalizing the initial feature levels failed ({}: {}); retrying",
                        reply.error(),
                        reply.message());
            }
        } catch (Exception e) {
            LOG.info("Finalizing the initial feature levels failed ({}); retrying", e.toString());
        }
    }

    /** The levels of {@link BootstrapFeatures}: Kafka 4.4's defaults, with {@code varve format --feature} on top. */
    private volatile Map<String, Short> bootstrapLevels = BootstrapFeatures.defaults();

    private Map<String, io.varve.metadata.controller.feature.FeatureUpdate> initialLevels() {
        Map<String, io.varve.metadata.controller.feature.FeatureUpdate> levels = new java.util.TreeMap<>();
        bootstrapLevels.forEach((feature, level) -> levels.put(
                feature,
                new io.varve.metadata.controller.feature.FeatureUpdate(
                        level, io.varve.metadata.controller.feature.FeatureUpdate.UpgradeType.UPGRADE)));
        return levels;
    }

    /** Closes the way to the controller, then the controller (before the metadata log it writes to). */
    @Override
    public void close() {
        router.close();
        retries.shutdownNow();
        if (controller != null) {
            controller.close();
        }
    }
}

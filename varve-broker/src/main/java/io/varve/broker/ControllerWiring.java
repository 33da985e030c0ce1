package io.varve.broker;

import io.varve.broker.api.KafkaRequestDispatcher;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.BrokerConfigLayers;
import io.varve.broker.controller.ControllerApis;
import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.controller.ControllerRouter;
import io.varve.metadata.MetadataLoader;
import io.varve.metadata.controller.ControllerConfig;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.raft.MetadataRaft;
import java.util.List;
import java.util.Map;
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

    /** Null unless this node is a controller. */
    final QuorumController controller;

    final ControllerRouter router;
    final ControllerCalls calls;
    private final ScheduledExecutorService retries;

    private ControllerWiring(QuorumController controller, ControllerRouter router, ScheduledExecutorService retries) {
        this.controller = controller;
        this.router = router;
        this.calls = new ControllerCalls(router);
        this.retries = retries;
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
                            .withBrokerSessionTimeoutMs(config.brokerSessionTimeoutMs()),
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
                    config.producerIdBlockSize());
            if (logs.servesControllerListener()) {
                logs.serveControllerApis(new KafkaRequestDispatcher(apis.apis(), apis.apiVersions(), requestExecutor));
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
                config.socketRequestMaxBytes());
        return new ControllerWiring(controller, router, retries);
    }

    /**
     * A new cluster finalizes the feature levels a Kafka 4.x cluster starts with, as far as this build supports them:
     * metadata.version at this build's highest (Kafka's {@code kafka-storage format} writes it) and group.version 1
     * (KIP-848 consumer groups). Once written, they change only through UpdateFeatures.
     */
    void bootstrapFeaturesIfLoneVoter(BrokerConfig config, MetadataLoader loader) throws Exception {
        if (controller == null
                || config.controllerQuorumVoters().size() > 1
                || !config.controllerQuorumBootstrapServers().isEmpty() // a dynamic quorum, like several voters
                || loader.image().features().level(SupportedFeatures.METADATA_VERSION) > 0) {
            return; // features are finalized by a lone voter's first start only; a multi-voter quorum does not yet
        }
        Map<String, io.varve.metadata.controller.feature.FeatureUpdate> levels = new java.util.TreeMap<>();
        for (String feature : List.of(SupportedFeatures.METADATA_VERSION, SupportedFeatures.GROUP_VERSION)) {
            levels.put(
                    feature,
                    new io.varve.metadata.controller.feature.FeatureUpdate(
                            SupportedFeatures.THIS_BUILD.get(feature).max(),
                            io.varve.metadata.controller.feature.FeatureUpdate.UpgradeType.UPGRADE));
        }
        io.varve.metadata.controller.ErrorReply reply =
                controller.updateFeatures(levels, false).get(30, TimeUnit.SECONDS);
        if (reply.error() != org.apache.kafka.common.protocol.Errors.NONE) {
            throw new IllegalStateException("Finalizing the initial feature levels " + levels + " failed: "
                    + reply.error() + " " + reply.message());
        }
        LOG.info("New cluster: finalized {}", levels.keySet());
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

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
import io.varve.raft.MetadataRaft;
import java.net.InetSocketAddress;
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
        Map<Integer, InetSocketAddress> voters = config.controllerQuorumVoters();
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
                    () -> voters,
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
                voters::get,
                retries,
                () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime()),
                ControllerRouter.Settings.defaults(),
                config.socketRequestMaxBytes());
        return new ControllerWiring(controller, router, retries);
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

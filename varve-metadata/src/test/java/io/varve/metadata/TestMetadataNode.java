package io.varve.metadata;

import io.varve.metadata.controller.ControllerConfig;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.cluster.BrokerHeartbeatReply;
import io.varve.metadata.controller.cluster.BrokerHeartbeatRequest;
import io.varve.metadata.controller.cluster.BrokerRegistrationReply;
import io.varve.metadata.controller.cluster.BrokerRegistrationRequest;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.metadata.record.Endpoint;
import io.varve.raft.node.MetadataRaftRuntime;
import io.varve.raft.node.RaftTransport;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Uuid;

/** A single-node metadata quorum in a directory, wired as the broker will wire it. */
public final class TestMetadataNode implements AutoCloseable {

    public static final int NODE_ID = 1;
    public static final String CLUSTER_ID = "test-cluster";

    public final MetadataRaftRuntime raft;
    public final MetadataLoader loader;
    public final QuorumController controller;

    private TestMetadataNode(Path dir, ControllerConfig config, List<MetadataPublisher> publishers) {
        this(dir, config, publishers, System::currentTimeMillis);
    }

    private TestMetadataNode(
            Path dir, ControllerConfig config, List<MetadataPublisher> publishers, LongSupplier clockMs) {
        raft = new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                NODE_ID, CLUSTER_ID, Set.of(NODE_ID), dir, RaftTransport.none(), 30_000));
        loader = new MetadataLoader();
        publishers.forEach(loader::installPublisher);
        raft.register(loader);
        raft.start();
        controller = new QuorumController(config, CLUSTER_ID, raft, loader, name -> false, clockMs);
    }

    public static TestMetadataNode start(Path dir, MetadataPublisher... publishers) {
        return new TestMetadataNode(dir, ControllerConfig.defaults(), List.of(publishers));
    }

    public static TestMetadataNode start(Path dir, ControllerConfig config) {
        return new TestMetadataNode(dir, config, List.of());
    }

    /** A node whose controller reads broker-session time from {@code clockMs}. */
    public static TestMetadataNode start(Path dir, ControllerConfig config, LongSupplier clockMs) {
        return new TestMetadataNode(dir, config, List.of(), clockMs);
    }

    /** Starts and registers this node as a broker, unfenced, as the broker does at start-up. */
    public static TestMetadataNode startWithBroker(Path dir) {
        TestMetadataNode node = start(dir);
        node.registerAndUnfence(registration(NODE_ID));
        return node;
    }

    /** Registers, then heartbeats with the loader's offset (caught up by definition); returns the epoch. */
    public long registerAndUnfence(BrokerRegistrationRequest registration) {
        BrokerRegistrationReply reply = controller.registerBroker(registration).join();
        if (reply.brokerEpoch() < 0) {
            throw new IllegalStateException("registration refused: " + reply);
        }
        BrokerHeartbeatReply heartbeat = controller
                .brokerHeartbeat(BrokerHeartbeatRequest.of(
                        registration.brokerId(),
                        reply.brokerEpoch(),
                        loader.image().offset()))
                .join();
        if (heartbeat.isFenced()) {
            throw new IllegalStateException("still fenced after a caught-up heartbeat: " + heartbeat);
        }
        return reply.brokerEpoch();
    }

    public static BrokerRegistrationRequest registration(int brokerId) {
        return new BrokerRegistrationRequest(
                brokerId,
                CLUSTER_ID,
                Uuid.randomUuid(),
                List.of(new Endpoint("PLAINTEXT", "localhost", 9092 + brokerId, "PLAINTEXT")),
                null,
                SupportedFeatures.THIS_BUILD);
    }

    @Override
    public void close() {
        controller.close();
        raft.close();
    }
}

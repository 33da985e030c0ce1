package io.varve.metadata;

import io.varve.metadata.controller.ControllerConfig;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.raft.RaftConfig;
import io.varve.raft.RaftNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.Uuid;

/** A single-node metadata quorum in a directory, wired as the broker will wire it. */
public final class TestMetadataNode implements AutoCloseable {

    public static final int NODE_ID = 1;

    public final RaftNode raft;
    public final MetadataLoader loader;
    public final QuorumController controller;

    private TestMetadataNode(Path dir, ControllerConfig config, List<MetadataPublisher> publishers) {
        raft = new RaftNode(RaftConfig.builder()
                .nodeId(NODE_ID)
                .voters(Set.of(NODE_ID))
                .logDir(dir)
                .build());
        loader = new MetadataLoader();
        publishers.forEach(loader::installPublisher);
        raft.register(loader);
        raft.start();
        controller = new QuorumController(config, raft, loader);
    }

    public static TestMetadataNode start(Path dir, MetadataPublisher... publishers) {
        return new TestMetadataNode(dir, ControllerConfig.defaults(), List.of(publishers));
    }

    public static TestMetadataNode start(Path dir, ControllerConfig config) {
        return new TestMetadataNode(dir, config, List.of());
    }

    /** Starts and registers this node as a broker, as the broker does at start-up. */
    public static TestMetadataNode startWithBroker(Path dir) {
        TestMetadataNode node = start(dir);
        node.controller.registerBroker(registration(NODE_ID)).join();
        return node;
    }

    public static RegisterBrokerRecord registration(int brokerId) {
        return new RegisterBrokerRecord(
                brokerId,
                Uuid.randomUuid(),
                List.of(new Endpoint("PLAINTEXT", "localhost", 9092 + brokerId, "PLAINTEXT")),
                null);
    }

    @Override
    public void close() {
        controller.close();
        raft.close();
    }
}

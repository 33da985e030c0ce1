package io.varve.broker;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import io.varve.raft.MetadataRaft;
import io.varve.raft.RaftConfig;
import io.varve.raft.RaftNode;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.OutboundMessage;
import io.varve.raft.node.MetadataRaftRuntime;
import io.varve.raft.node.RaftTransport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Chooses the Raft implementation behind the metadata log ({@code varve.metadata.raft.core.enable}): the
 * single-voter {@link RaftNode} in {@code __cluster_metadata-0} (the default) or the KRaft-style runtime in
 * {@value MetadataRaftRuntime#DIR_NAME}. Each keeps to its own directory, and a node never starts on the other's
 * files: the two formats differ and neither converts the other.
 */
final class MetadataLogs {
    static final String SETTING = "varve.metadata.raft.core.enable";
    private static final long START_TIMEOUT_MS = 30_000;

    private MetadataLogs() {}

    static MetadataRaft open(BrokerConfig config, String clusterId) {
        int nodeId = config.nodeId();
        Path parent = config.metadataLogDir();
        RaftConfig nodeConfig = RaftConfig.builder()
                .nodeId(nodeId)
                .voters(Set.of(nodeId))
                .logDir(parent)
                .build();
        Path oldDir = nodeConfig.metadataLogDir();
        Path newDir = MetadataRaftRuntime.storeDir(parent);
        if (!config.metadataRaftCoreEnable()) {
            refuseIfPresent(newDir, "the KRaft-style Raft runtime", "true");
            return new RaftNode(nodeConfig);
        }
        refuseIfPresent(oldDir, "the single-voter Raft node", "false");
        return new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                nodeId, clusterId, Set.of(nodeId), parent, new LoneVoterTransport(), START_TIMEOUT_MS));
    }

    private static void refuseIfPresent(Path otherDir, String otherStack, String otherSetting) {
        if (Files.exists(otherDir)) {
            throw new ConfigException("The metadata log in " + otherDir + " was written by " + otherStack
                    + ", which this node does not run: start it with " + SETTING + "=" + otherSetting
                    + " or point metadata.log.dir at another directory.");
        }
    }

    /** A quorum of one has nobody to talk to. */
    private static final class LoneVoterTransport implements RaftTransport {
        @Override
        public void start(Predicate<InboundMessage> inbound) {}

        @Override
        public void send(OutboundMessage message) {}

        @Override
        public void close() {}
    }
}

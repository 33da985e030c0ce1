package io.varve.raft;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;

/**
 * Static configuration of one {@link RaftNode}. Build with {@link #builder()}.
 *
 * <p>Only a quorum of one voter (this node) is supported for now; the voter set is nevertheless
 * carried everywhere so that multi-voter quorums only add behaviour, not plumbing.
 */
public final class RaftConfig {

    /** Name of the Raft log, and (with {@code -0}) of its directory under {@link #logDir()}. */
    public static final String METADATA_TOPIC_NAME = "__cluster_metadata";

    public static final int DEFAULT_MAX_BATCH_BYTES = 8 * 1024 * 1024;
    public static final int DEFAULT_MAX_PENDING_APPENDS = 10_000;
    public static final int DEFAULT_MAX_RECORDS_PER_DELIVERY = 10_000;

    private final int nodeId;
    private final Set<Integer> voters;
    private final Path logDir;
    private final int maxBatchBytes;
    private final int maxPendingAppends;
    private final int maxRecordsPerDelivery;

    private RaftConfig(Builder builder) {
        this.nodeId = builder.nodeId;
        this.voters = Set.copyOf(Objects.requireNonNull(builder.voters, "voters"));
        this.logDir = Objects.requireNonNull(builder.logDir, "logDir");
        this.maxBatchBytes = builder.maxBatchBytes;
        this.maxPendingAppends = builder.maxPendingAppends;
        this.maxRecordsPerDelivery = builder.maxRecordsPerDelivery;
        if (nodeId < 0) {
            throw new IllegalArgumentException("nodeId must be >= 0: " + nodeId);
        }
        if (voters.isEmpty()) {
            throw new IllegalArgumentException("voters must not be empty");
        }
        if (!voters.contains(nodeId)) {
            throw new IllegalArgumentException(
                    "node " + nodeId + " is not one of the voters " + voters + " (observers are not supported yet)");
        }
        requirePositive("maxBatchBytes", maxBatchBytes);
        requirePositive("maxPendingAppends", maxPendingAppends);
        requirePositive("maxRecordsPerDelivery", maxRecordsPerDelivery);
    }

    private static void requirePositive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0: " + value);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public int nodeId() {
        return nodeId;
    }

    public Set<Integer> voters() {
        return voters;
    }

    /** The parent directory; the log lives in {@link #metadataLogDir()}. */
    public Path logDir() {
        return logDir;
    }

    /** {@code <logDir>/__cluster_metadata-0}: segment file and quorum-state file. */
    public Path metadataLogDir() {
        return logDir.resolve(METADATA_TOPIC_NAME + "-0");
    }

    /** Largest accepted batch, summing payload sizes plus framing. */
    public int maxBatchBytes() {
        return maxBatchBytes;
    }

    /** Bound of the queue of appends waiting for the raft thread. */
    public int maxPendingAppends() {
        return maxPendingAppends;
    }

    /** Upper bound (soft: whole batches are never split) of records per {@link RaftListener#handleCommit} call. */
    public int maxRecordsPerDelivery() {
        return maxRecordsPerDelivery;
    }

    @Override
    public String toString() {
        return "RaftConfig(nodeId=" + nodeId + ", voters=" + voters + ", logDir=" + logDir + ")";
    }

    public static final class Builder {
        private int nodeId = -1;
        private Set<Integer> voters;
        private Path logDir;
        private int maxBatchBytes = DEFAULT_MAX_BATCH_BYTES;
        private int maxPendingAppends = DEFAULT_MAX_PENDING_APPENDS;
        private int maxRecordsPerDelivery = DEFAULT_MAX_RECORDS_PER_DELIVERY;

        private Builder() {}

        public Builder nodeId(int nodeId) {
            this.nodeId = nodeId;
            return this;
        }

        public Builder voters(Set<Integer> voters) {
            this.voters = voters;
            return this;
        }

        public Builder logDir(Path logDir) {
            this.logDir = logDir;
            return this;
        }

        public Builder maxBatchBytes(int maxBatchBytes) {
            this.maxBatchBytes = maxBatchBytes;
            return this;
        }

        public Builder maxPendingAppends(int maxPendingAppends) {
            this.maxPendingAppends = maxPendingAppends;
            return this;
        }

        public Builder maxRecordsPerDelivery(int maxRecordsPerDelivery) {
            this.maxRecordsPerDelivery = maxRecordsPerDelivery;
            return this;
        }

        public RaftConfig build() {
            return new RaftConfig(this);
        }
    }
}

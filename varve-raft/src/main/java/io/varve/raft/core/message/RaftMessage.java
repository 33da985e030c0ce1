package io.varve.raft.core.message;

/**
 * A Raft wire message. Each record mirrors the single-partition ({@code __cluster_metadata-0}) part of
 * the Kafka message of the same name, so a protocol seam maps it field by field to Kafka's generated
 * {@code *Data} classes. Correlation ids travel in the envelopes ({@link InboundMessage},
 * {@link OutboundMessage}), as in Kafka's request header.
 */
public sealed interface RaftMessage permits RaftRequest, RaftResponse {

    /** "No replica" / "no leader known", as Kafka's {@code -1}. */
    int NO_ID = -1;

    /** Whether an id names a replica. */
    static boolean isId(int id) {
        return id >= 0;
    }

    /**
     * The destination standing for the {@code index}-th bootstrap server ({@code controller.quorum.bootstrap.servers}):
     * an address without a known replica id, as Kafka gives its bootstrap nodes negative ids.
     */
    static int bootstrapServerId(int index) {
        if (index < 0) {
            throw new IllegalArgumentException("bootstrap server index must be >= 0: " + index);
        }
        return -2 - index;
    }

    /** The index of a bootstrap-server destination, or -1 when {@code id} is not one. */
    static int bootstrapServerIndex(int id) {
        return id <= -2 ? -2 - id : -1;
    }
}

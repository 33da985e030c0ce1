package io.varve.raft.core.message;

/** Kafka's DescribeQuorumRequest (sent by admin tools; carries no cluster id). */
public record DescribeQuorumRequest() implements RaftRequest {
    @Override
    public String clusterId() {
        return null;
    }
}

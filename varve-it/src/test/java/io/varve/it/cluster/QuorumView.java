package io.varve.it.cluster;

/**
 * What one node's DescribeQuorum answered: the leader it knows ({@code -1}: none), the epoch, its high watermark.
 *
 * @param nodeId the node that answered
 * @param atNanos {@link System#nanoTime()} when the answer arrived
 */
public record QuorumView(int nodeId, int leaderId, int leaderEpoch, long highWatermark, long atNanos) {
    public boolean knowsLeader() {
        return leaderId >= 0;
    }
}

package io.varve.broker.tiered;

import io.varve.broker.replica.LeadershipListener;
import io.varve.tiered.manager.RemoteLogManager;
import org.apache.kafka.common.TopicPartition;

/**
 * In a cluster, tells the remote log manager which partitions this broker leads and in which leader epoch: only
 * the leader uploads and deletes a partition's remote segments. Both calls only update a map (metadata thread).
 */
public final class TieredLeadership implements LeadershipListener {
    private final RemoteLogManager manager;

    public TieredLeadership(RemoteLogManager manager) {
        this.manager = manager;
    }

    @Override
    public void onBecomingLeader(TopicPartition tp, int leaderEpoch) {
        manager.onBecomingLeader(tp, leaderEpoch);
    }

    @Override
    public void onResigning(TopicPartition tp, int leaderEpoch) {
        manager.onResigning(tp, leaderEpoch);
    }
}

package io.varve.broker.api;

import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.BrokerInfo;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchResponseData;

/**
 * KIP-951: a client told NOT_LEADER_OR_FOLLOWER learns the partition's current leader and epoch, and the leader's
 * address on the listener it came in on, so it goes there without a metadata round trip first.
 */
final class CurrentLeaders {
    /** A leader's address on one listener. */
    record NodeAddress(String host, int port, String rack) {}

    private CurrentLeaders() {}

    /** Fills {@code out} with the leader of {@code tp} in {@code snapshot}, and adds its address to {@code leaders}. */
    static void fill(
            MetadataSnapshot snapshot,
            TopicPartition tp,
            String listenerName,
            FetchResponseData.LeaderIdAndEpoch out,
            Map<Integer, NodeAddress> leaders) {
        int[] leaderAndEpoch = leaderAndEpoch(snapshot, tp);
        if (leaderAndEpoch == null) {
            return;
        }
        out.setLeaderId(leaderAndEpoch[0]).setLeaderEpoch(leaderAndEpoch[1]);
        address(snapshot, leaderAndEpoch[0], listenerName).ifPresent(a -> leaders.put(leaderAndEpoch[0], a));
    }

    /** The leader id and leader epoch of {@code tp}, or null when the image has no live leader for it. */
    static int[] leaderAndEpoch(MetadataSnapshot snapshot, TopicPartition tp) {
        TopicInfo topic = snapshot.topicsByName().get(tp.topic());
        PartitionInfo p = topic == null ? null : topic.partitions().get(tp.partition());
        if (p == null || p.leader() < 0) {
            return null;
        }
        return new int[] {p.leader(), p.leaderEpoch()};
    }

    static java.util.Optional<NodeAddress> address(MetadataSnapshot snapshot, int nodeId, String listenerName) {
        for (BrokerInfo b : snapshot.brokers()) {
            if (b.nodeId() == nodeId) {
                return b.endpoint(listenerName).map(e -> new NodeAddress(e.host(), e.port(), b.rack()));
            }
        }
        return java.util.Optional.empty();
    }
}

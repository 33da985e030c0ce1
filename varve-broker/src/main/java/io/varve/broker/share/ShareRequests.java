package io.varve.broker.share;

import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.replica.ReplicaManager;
import io.varve.storage.PartitionLog;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.Errors;

/** What ShareFetch and ShareAcknowledge share: a share-partition's local leader log, and errors per partition. */
final class ShareRequests {
    private ShareRequests() {}

    /** The topic partition of {@code key}, or null when the topic id is unknown. */
    static TopicPartition topicPartition(MetadataSnapshot snapshot, SharePartitionKey key) {
        MetadataSnapshot.TopicInfo info = snapshot.topicsById().get(key.topicId());
        return info == null ? null : new TopicPartition(info.name(), key.partition());
    }

    /** The leader log of {@code key}'s partition; UNKNOWN_TOPIC_ID, NOT_LEADER_OR_FOLLOWER … otherwise. */
    static PartitionLog leaderLog(ReplicaManager replicaManager, MetadataSnapshot snapshot, SharePartitionKey key) {
        TopicPartition tp = topicPartition(snapshot, key);
        if (tp == null) {
            throw new UnknownTopicIdException("This server does not know topic id " + key.topicId() + ".");
        }
        return replicaManager.leaderPartition(snapshot, tp).log();
    }

    /** The error of {@code e} on a ShareFetch partition, with the current leader for NOT_LEADER_OR_FOLLOWER. */
    static void fillError(
            ShareFetchResponseData.PartitionData out,
            MetadataSnapshot snapshot,
            SharePartitionKey key,
            ApiException e) {
        Errors error = Errors.forException(e);
        out.setErrorCode(error.code()).setErrorMessage(e.getMessage());
        int[] leader = leaderAndEpoch(snapshot, key);
        if (leader != null && error == Errors.NOT_LEADER_OR_FOLLOWER) {
            out.currentLeader().setLeaderId(leader[0]).setLeaderEpoch(leader[1]);
        }
    }

    /** The leader id and epoch of {@code key}'s partition, or null. */
    static int[] leaderAndEpoch(MetadataSnapshot snapshot, SharePartitionKey key) {
        MetadataSnapshot.TopicInfo info = snapshot.topicsById().get(key.topicId());
        MetadataSnapshot.PartitionInfo p =
                info == null ? null : info.partitions().get(key.partition());
        return p == null || p.leader() < 0 ? null : new int[] {p.leader(), p.leaderEpoch()};
    }
}

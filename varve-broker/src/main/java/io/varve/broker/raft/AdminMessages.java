package io.varve.broker.raft;

import static io.varve.broker.raft.Partitions.checkPartition;
import static io.varve.broker.raft.Partitions.checkTopic;
import static io.varve.broker.raft.Partitions.only;
import static io.varve.broker.raft.Partitions.onlyOrNull;

import io.varve.raft.core.message.AddVoterRequest;
import io.varve.raft.core.message.AddVoterResponse;
import io.varve.raft.core.message.DescribeQuorumRequest;
import io.varve.raft.core.message.DescribeQuorumResponse;
import io.varve.raft.core.message.DescribeQuorumResponse.ReplicaProgress;
import io.varve.raft.core.message.RaftMessage;
import io.varve.raft.core.message.RemoveVoterRequest;
import io.varve.raft.core.message.RemoveVoterResponse;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AddRaftVoterRequestData;
import org.apache.kafka.common.message.AddRaftVoterResponseData;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.RemoveRaftVoterRequestData;
import org.apache.kafka.common.message.RemoveRaftVoterResponseData;

/**
 * DescribeQuorum (v0-2), AddRaftVoter (v0-1) and RemoveRaftVoter (v0), the admin client's messages. The
 * core tracks voters by id only (KIP-853 without directory ids or listeners): a voter's directory id and
 * listeners are written as the zero uuid and an empty list and ignored when read, and the leader a
 * response names is not on the wire of AddRaftVoter and RemoveRaftVoter (it reads back as -1). Before v1,
 * DescribeQuorum carries no timestamps (they read back as -1).
 */
final class AdminMessages {
    private AdminMessages() {}

    static DescribeQuorumRequestData toKafka(DescribeQuorumRequest request) {
        DescribeQuorumRequestData data = new DescribeQuorumRequestData();
        data.topics()
                .add(new DescribeQuorumRequestData.TopicData()
                        .setTopicName(RaftApis.METADATA_TOPIC)
                        .setPartitions(List.of(new DescribeQuorumRequestData.PartitionData()
                                .setPartitionIndex(RaftApis.METADATA_PARTITION))));
        return data;
    }

    static DescribeQuorumRequest fromKafka(DescribeQuorumRequestData data) {
        DescribeQuorumRequestData.TopicData topic = only(data.topics(), "topic");
        checkTopic(topic.topicName());
        checkPartition(only(topic.partitions(), "partition").partitionIndex());
        return new DescribeQuorumRequest();
    }

    static DescribeQuorumResponseData toKafka(DescribeQuorumResponse response) {
        DescribeQuorumResponseData data =
                new DescribeQuorumResponseData().setErrorCode(WireErrors.topLevelCode(response.error()));
        data.topics()
                .add(new DescribeQuorumResponseData.TopicData()
                        .setTopicName(RaftApis.METADATA_TOPIC)
                        .setPartitions(List.of(new DescribeQuorumResponseData.PartitionData()
                                .setPartitionIndex(RaftApis.METADATA_PARTITION)
                                .setErrorCode(response.error().code())
                                .setLeaderId(response.leaderId())
                                .setLeaderEpoch(response.leaderEpoch())
                                .setHighWatermark(response.highWatermark())
                                .setCurrentVoters(toKafka(response.currentVoters()))
                                .setObservers(toKafka(response.observers())))));
        return data;
    }

    static DescribeQuorumResponse fromKafka(DescribeQuorumResponseData data) {
        DescribeQuorumResponseData.TopicData topic = onlyOrNull(data.topics(), "topic");
        DescribeQuorumResponseData.PartitionData partition =
                topic == null ? null : only(topic.partitions(), "partition");
        if (partition == null) {
            return new DescribeQuorumResponse(
                    WireErrors.fromCode(data.errorCode()), RaftMessage.NO_ID, -1, -1, List.of(), List.of());
        }
        checkTopic(topic.topicName());
        checkPartition(partition.partitionIndex());
        return new DescribeQuorumResponse(
                WireErrors.decode(data.errorCode(), partition.errorCode()),
                partition.leaderId(),
                partition.leaderEpoch(),
                partition.highWatermark(),
                fromKafka(partition.currentVoters()),
                fromKafka(partition.observers()));
    }

    static AddRaftVoterRequestData toKafka(AddVoterRequest request, RaftWireMapping.Limits limits) {
        return new AddRaftVoterRequestData()
                .setClusterId(request.clusterId())
                .setTimeoutMs(limits.voterChangeTimeoutMs())
                .setVoterId(request.voterId())
                .setVoterDirectoryId(Uuid.ZERO_UUID)
                .setAckWhenCommitted(true);
    }

    static AddVoterRequest fromKafka(AddRaftVoterRequestData data) {
        return new AddVoterRequest(data.clusterId(), data.voterId());
    }

    static AddRaftVoterResponseData toKafka(AddVoterResponse response) {
        return new AddRaftVoterResponseData()
                .setErrorCode(response.error().code())
                .setErrorMessage(response.errorMessage());
    }

    static AddVoterResponse fromKafka(AddRaftVoterResponseData data) {
        return new AddVoterResponse(WireErrors.fromCode(data.errorCode()), data.errorMessage(), RaftMessage.NO_ID, -1);
    }

    static RemoveRaftVoterRequestData toKafka(RemoveVoterRequest request) {
        return new RemoveRaftVoterRequestData()
                .setClusterId(request.clusterId())
                .setVoterId(request.voterId())
                .setVoterDirectoryId(Uuid.ZERO_UUID);
    }

    static RemoveVoterRequest fromKafka(RemoveRaftVoterRequestData data) {
        return new RemoveVoterRequest(data.clusterId(), data.voterId());
    }

    static RemoveRaftVoterResponseData toKafka(RemoveVoterResponse response) {
        return new RemoveRaftVoterResponseData()
                .setErrorCode(response.error().code())
                .setErrorMessage(response.errorMessage());
    }

    static RemoveVoterResponse fromKafka(RemoveRaftVoterResponseData data) {
        return new RemoveVoterResponse(
                WireErrors.fromCode(data.errorCode()), data.errorMessage(), RaftMessage.NO_ID, -1);
    }

    private static List<DescribeQuorumResponseData.ReplicaState> toKafka(List<ReplicaProgress> replicas) {
        List<DescribeQuorumResponseData.ReplicaState> out = new ArrayList<>(replicas.size());
        for (ReplicaProgress replica : replicas) {
            out.add(new DescribeQuorumResponseData.ReplicaState()
                    .setReplicaId(replica.replicaId())
                    .setReplicaDirectoryId(Uuid.ZERO_UUID)
                    .setLogEndOffset(replica.logEndOffset())
                    .setLastFetchTimestamp(replica.lastFetchTimestampMs())
                    .setLastCaughtUpTimestamp(replica.lastCaughtUpTimestampMs()));
        }
        return out;
    }

    private static List<ReplicaProgress> fromKafka(List<DescribeQuorumResponseData.ReplicaState> replicas) {
        List<ReplicaProgress> out = new ArrayList<>(replicas.size());
        for (DescribeQuorumResponseData.ReplicaState replica : replicas) {
            out.add(new ReplicaProgress(
                    replica.replicaId(),
                    replica.logEndOffset(),
                    replica.lastFetchTimestamp(),
                    replica.lastCaughtUpTimestamp()));
        }
        return out;
    }
}

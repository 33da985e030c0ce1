package io.varve.broker.raft;

import static io.varve.broker.raft.Partitions.checkPartition;
import static io.varve.broker.raft.Partitions.checkTopic;
import static io.varve.broker.raft.Partitions.only;
import static io.varve.broker.raft.Partitions.onlyOrNull;

import io.varve.raft.core.message.BeginQuorumEpochRequest;
import io.varve.raft.core.message.BeginQuorumEpochResponse;
import io.varve.raft.core.message.EndQuorumEpochRequest;
import io.varve.raft.core.message.EndQuorumEpochResponse;
import io.varve.raft.core.message.RaftMessage;
import io.varve.raft.core.message.VoteRequest;
import io.varve.raft.core.message.VoteResponse;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BeginQuorumEpochRequestData;
import org.apache.kafka.common.message.BeginQuorumEpochResponseData;
import org.apache.kafka.common.message.EndQuorumEpochRequestData;
import org.apache.kafka.common.message.EndQuorumEpochResponseData;
import org.apache.kafka.common.message.VoteRequestData;
import org.apache.kafka.common.message.VoteResponseData;

/**
 * Vote (v0-2), BeginQuorumEpoch (v0-1) and EndQuorumEpoch (v0-1). Directory ids are not tracked yet, so
 * they travel as the zero uuid and are ignored when read; endpoints travel empty. Version 0 of Vote and
 * BeginQuorumEpoch does not name the receiver: such a request is for the replica that reads it.
 */
final class ElectionMessages {
    private ElectionMessages() {}

    static VoteRequestData toKafka(VoteRequest request, short version) {
        if (request.preVote() && version < 2) {
            throw new IllegalArgumentException("a pre-vote (KIP-996) needs Vote v2, not v" + version);
        }
        VoteRequestData.PartitionData partition = new VoteRequestData.PartitionData()
                .setPartitionIndex(RaftApis.METADATA_PARTITION)
                .setReplicaEpoch(request.replicaEpoch())
                .setReplicaId(request.replicaId())
                .setReplicaDirectoryId(Uuid.ZERO_UUID)
                .setVoterDirectoryId(Uuid.ZERO_UUID)
                .setLastOffsetEpoch(request.lastOffsetEpoch())
                .setLastOffset(request.lastOffset())
                .setPreVote(request.preVote());
        VoteRequestData data =
                new VoteRequestData().setClusterId(request.clusterId()).setVoterId(request.voterId());
        data.topics()
                .add(new VoteRequestData.TopicData()
                        .setTopicName(RaftApis.METADATA_TOPIC)
                        .setPartitions(List.of(partition)));
        return data;
    }

    static VoteRequest fromKafka(VoteRequestData data, short version, int localNodeId) {
        VoteRequestData.TopicData topic = only(data.topics(), "topic");
        checkTopic(topic.topicName());
        VoteRequestData.PartitionData partition = only(topic.partitions(), "partition");
        checkPartition(partition.partitionIndex());
        return new VoteRequest(
                data.clusterId(),
                version >= 1 ? data.voterId() : localNodeId,
                partition.replicaEpoch(),
                partition.replicaId(),
                partition.lastOffsetEpoch(),
                partition.lastOffset(),
                partition.preVote());
    }

    static VoteResponseData toKafka(VoteResponse response) {
        VoteResponseData data = new VoteResponseData().setErrorCode(WireErrors.topLevelCode(response.error()));
        data.topics()
                .add(new VoteResponseData.TopicData()
                        .setTopicName(RaftApis.METADATA_TOPIC)
                        .setPartitions(List.of(new VoteResponseData.PartitionData()
                                .setPartitionIndex(RaftApis.METADATA_PARTITION)
                                .setErrorCode(response.error().code())
                                .setLeaderId(response.leaderId())
                                .setLeaderEpoch(response.leaderEpoch())
                                .setVoteGranted(response.voteGranted()))));
        return data;
    }

    static VoteResponse fromKafka(VoteResponseData data) {
        VoteResponseData.TopicData topic = onlyOrNull(data.topics(), "topic");
        VoteResponseData.PartitionData partition = topic == null ? null : only(topic.partitions(), "partition");
        if (partition == null) {
            return new VoteResponse(WireErrors.fromCode(data.errorCode()), RaftMessage.NO_ID, -1, false);
        }
        checkTopic(topic.topicName());
        checkPartition(partition.partitionIndex());
        return new VoteResponse(
                WireErrors.decode(data.errorCode(), partition.errorCode()),
                partition.leaderId(),
                partition.leaderEpoch(),
                partition.voteGranted());
    }

    static BeginQuorumEpochRequestData toKafka(BeginQuorumEpochRequest request) {
        BeginQuorumEpochRequestData data = new BeginQuorumEpochRequestData()
                .setClusterId(request.clusterId())
                .setVoterId(request.voterId());
        data.topics()
                .add(new BeginQuorumEpochRequestData.TopicData()
                        .setTopicName(RaftApis.METADATA_TOPIC)
                        .setPartitions(List.of(new BeginQuorumEpochRequestData.PartitionData()
                                .setPartitionIndex(RaftApis.METADATA_PARTITION)
                                .setVoterDirectoryId(Uuid.ZERO_UUID)
                                .setLeaderId(request.leaderId())
                                .setLeaderEpoch(request.leaderEpoch()))));
        return data;
    }

    static BeginQuorumEpochRequest fromKafka(BeginQuorumEpochRequestData data, short version, int localNodeId) {
        BeginQuorumEpochRequestData.TopicData topic = only(data.topics(), "topic");
        checkTopic(topic.topicName());
        BeginQuorumEpochRequestData.PartitionData partition = only(topic.partitions(), "partition");
        checkPartition(partition.partitionIndex());
        return new BeginQuorumEpochRequest(
                data.clusterId(),
                version >= 1 ? data.voterId() : localNodeId,
                partition.leaderEpoch(),
                partition.leaderId());
    }

    static BeginQuorumEpochResponseData toKafka(BeginQuorumEpochResponse response) {
        BeginQuorumEpochResponseData data =
                new BeginQuorumEpochResponseData().setErrorCode(WireErrors.topLevelCode(response.error()));
        data.topics()
                .add(new BeginQuorumEpochResponseData.TopicData()
                        .setTopicName(RaftApis.METADATA_TOPIC)
                        .setPartitions(List.of(new BeginQuorumEpochResponseData.PartitionData()
                                .setPartitionIndex(RaftApis.METADATA_PARTITION)
                                .setErrorCode(response.error().code())
                                .setLeaderId(response.leaderId())
                                .setLeaderEpoch(response.leaderEpoch()))));
        return data;
    }

    static BeginQuorumEpochResponse fromKafka(BeginQuorumEpochResponseData data) {
        BeginQuorumEpochResponseData.TopicData topic = onlyOrNull(data.topics(), "topic");
        BeginQuorumEpochResponseData.PartitionData partition =
                topic == null ? null : only(topic.partitions(), "partition");
        if (partition == null) {
            return new BeginQuorumEpochResponse(WireErrors.fromCode(data.errorCode()), RaftMessage.NO_ID, -1);
        }
        checkTopic(topic.topicName());
        checkPartition(partition.partitionIndex());
        return new BeginQuorumEpochResponse(
                WireErrors.decode(data.errorCode(), partition.errorCode()),
                partition.leaderId(),
                partition.leaderEpoch());
    }

    /** Version 0 names successors by id ({@code PreferredSuccessors}), version 1 with directory ids ({@code PreferredCandidates}). */
    static EndQuorumEpochRequestData toKafka(EndQuorumEpochRequest request, short version) {
        EndQuorumEpochRequestData.PartitionData partition = new EndQuorumEpochRequestData.PartitionData()
                .setPartitionIndex(RaftApis.METADATA_PARTITION)
                .setLeaderId(request.leaderId())
                .setLeaderEpoch(request.leaderEpoch());
        if (version == 0) {
            partition.setPreferredSuccessors(request.preferredSuccessors());
        } else {
            List<EndQuorumEpochRequestData.ReplicaInfo> candidates = new ArrayList<>();
            for (int id : request.preferredSuccessors()) {
                candidates.add(new EndQuorumEpochRequestData.ReplicaInfo()
                        .setCandidateId(id)
                        .setCandidateDirectoryId(Uuid.ZERO_UUID));
            }
            partition.setPreferredCandidates(candidates);
        }
        EndQuorumEpochRequestData data = new EndQuorumEpochRequestData().setClusterId(request.clusterId());
        data.topics()
                .add(new EndQuorumEpochRequestData.TopicData()
                        .setTopicName(RaftApis.METADATA_TOPIC)
                        .setPartitions(List.of(partition)));
        return data;
    }

    static EndQuorumEpochRequest fromKafka(EndQuorumEpochRequestData data, short version) {
        EndQuorumEpochRequestData.TopicData topic = only(data.topics(), "topic");
        checkTopic(topic.topicName());
        EndQuorumEpochRequestData.PartitionData partition = only(topic.partitions(), "partition");
        checkPartition(partition.partitionIndex());
        List<Integer> successors = new ArrayList<>();
        if (version == 0) {
            successors.addAll(partition.preferredSuccessors());
        } else {
            partition.preferredCandidates().forEach(c -> successors.add(c.candidateId()));
        }
        return new EndQuorumEpochRequest(data.clusterId(), partition.leaderEpoch(), partition.leaderId(), successors);
    }

    static EndQuorumEpochResponseData toKafka(EndQuorumEpochResponse response) {
        EndQuorumEpochResponseData data =
                new EndQuorumEpochResponseData().setErrorCode(WireErrors.topLevelCode(response.error()));
        data.topics()
                .add(new EndQuorumEpochResponseData.TopicData()
                        .setTopicName(RaftApis.METADATA_TOPIC)
                        .setPartitions(List.of(new EndQuorumEpochResponseData.PartitionData()
                                .setPartitionIndex(RaftApis.METADATA_PARTITION)
                                .setErrorCode(response.error().code())
                                .setLeaderId(response.leaderId())
                                .setLeaderEpoch(response.leaderEpoch()))));
        return data;
    }

    static EndQuorumEpochResponse fromKafka(EndQuorumEpochResponseData data) {
        EndQuorumEpochResponseData.TopicData topic = onlyOrNull(data.topics(), "topic");
        EndQuorumEpochResponseData.PartitionData partition =
                topic == null ? null : only(topic.partitions(), "partition");
        if (partition == null) {
            return new EndQuorumEpochResponse(WireErrors.fromCode(data.errorCode()), RaftMessage.NO_ID, -1);
        }
        checkTopic(topic.topicName());
        checkPartition(partition.partitionIndex());
        return new EndQuorumEpochResponse(
                WireErrors.decode(data.errorCode(), partition.errorCode()),
                partition.leaderId(),
                partition.leaderEpoch());
    }
}

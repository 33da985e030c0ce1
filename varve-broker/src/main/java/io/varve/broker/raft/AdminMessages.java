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
import io.varve.raft.core.message.UpdateVoterRequest;
import io.varve.raft.core.message.UpdateVoterResponse;
import io.varve.raft.core.message.VoterSet;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AddRaftVoterRequestData;
import org.apache.kafka.common.message.AddRaftVoterResponseData;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.RemoveRaftVoterRequestData;
import org.apache.kafka.common.message.RemoveRaftVoterResponseData;
import org.apache.kafka.common.message.UpdateRaftVoterRequestData;
import org.apache.kafka.common.message.UpdateRaftVoterResponseData;

/**
 * DescribeQuorum (v0-2), AddRaftVoter (v0-1), RemoveRaftVoter (v0) and UpdateRaftVoter (v0), with KIP-853's directory
 * ids and listeners. The leader a response names is not on the wire of AddRaftVoter and RemoveRaftVoter (it reads back
 * as -1). Before v1, DescribeQuorum carries no timestamps (they read back as -1); before v2 no directory ids and no
 * nodes. AddRaftVoter's timeout and AckWhenCommitted are not kept: the core always answers once the change commits,
 * and the request times out on the dispatcher's clock.
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

    static DescribeQuorumResponseData toKafka(DescribeQuorumResponse response, short version) {
        boolean v2 = version >= 2; // directory ids and nodes
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
                                .setCurrentVoters(toKafka(response.currentVoters(), v2))
                                .setObservers(toKafka(response.observers(), v2)))));
        for (VoterSet.Voter voter : v2 ? response.nodes() : List.<VoterSet.Voter>of()) {
            DescribeQuorumResponseData.Node node = new DescribeQuorumResponseData.Node().setNodeId(voter.id());
            voter.endpoints().forEach((name, endpoint) -> node.listeners()
                    .add(new DescribeQuorumResponseData.Listener()
                            .setName(name)
                            .setHost(endpoint.host())
                            .setPort(endpoint.port())));
            data.nodes().add(node);
        }
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
                fromKafka(partition.observers()),
                nodesFromKafka(data.nodes()));
    }

    static AddRaftVoterRequestData toKafka(AddVoterRequest request, RaftWireMapping.Limits limits) {
        AddRaftVoterRequestData data = new AddRaftVoterRequestData()
                .setClusterId(request.clusterId())
                .setTimeoutMs(limits.voterChangeTimeoutMs())
                .setVoterId(request.voterId())
                .setVoterDirectoryId(toKafka(request.voter().directoryId()))
                .setAckWhenCommitted(true);
        request.voter().endpoints().forEach((name, endpoint) -> data.listeners()
                .add(new AddRaftVoterRequestData.Listener()
                        .setName(name)
                        .setHost(endpoint.host())
                        .setPort(endpoint.port())));
        return data;
    }

    static AddVoterRequest fromKafka(AddRaftVoterRequestData data) {
        SortedMap<String, VoterSet.Endpoint> endpoints = new TreeMap<>();
        for (AddRaftVoterRequestData.Listener listener : data.listeners()) {
            endpoints.put(listener.name(), new VoterSet.Endpoint(listener.host(), listener.port()));
        }
        return new AddVoterRequest(
                data.clusterId(), new VoterSet.Voter(data.voterId(), fromKafka(data.voterDirectoryId()), endpoints));
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
                .setVoterDirectoryId(toKafka(request.voterDirectoryId()));
    }

    static RemoveVoterRequest fromKafka(RemoveRaftVoterRequestData data) {
        return new RemoveVoterRequest(data.clusterId(), data.voterId(), fromKafka(data.voterDirectoryId()));
    }

    static UpdateRaftVoterRequestData toKafka(UpdateVoterRequest request) {
        UpdateRaftVoterRequestData data = new UpdateRaftVoterRequestData()
                .setClusterId(request.clusterId())
                .setCurrentLeaderEpoch(request.currentLeaderEpoch())
                .setVoterId(request.voter().id())
                .setVoterDirectoryId(toKafka(request.voter().directoryId()))
                .setKRaftVersionFeature(new UpdateRaftVoterRequestData.KRaftVersionFeature()
                        .setMinSupportedVersion((short) 0)
                        .setMaxSupportedVersion((short) 1));
        request.voter().endpoints().forEach((name, endpoint) -> data.listeners()
                .add(new UpdateRaftVoterRequestData.Listener()
                        .setName(name)
                        .setHost(endpoint.host())
                        .setPort(endpoint.port())));
        return data;
    }

    static UpdateVoterRequest fromKafka(UpdateRaftVoterRequestData data) {
        SortedMap<String, VoterSet.Endpoint> endpoints = new TreeMap<>();
        for (UpdateRaftVoterRequestData.Listener listener : data.listeners()) {
            endpoints.put(listener.name(), new VoterSet.Endpoint(listener.host(), listener.port()));
        }
        return new UpdateVoterRequest(
                data.clusterId(),
                data.currentLeaderEpoch(),
                new VoterSet.Voter(data.voterId(), fromKafka(data.voterDirectoryId()), endpoints));
    }

    static UpdateRaftVoterResponseData toKafka(UpdateVoterResponse response) {
        UpdateRaftVoterResponseData data =
                new UpdateRaftVoterResponseData().setErrorCode(response.error().code());
        data.currentLeader().setLeaderId(response.leaderId()).setLeaderEpoch(response.leaderEpoch());
        return data;
    }

    static UpdateVoterResponse fromKafka(UpdateRaftVoterResponseData data) {
        return new UpdateVoterResponse(
                WireErrors.fromCode(data.errorCode()),
                data.currentLeader().leaderId(),
                data.currentLeader().leaderEpoch());
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

    private static List<DescribeQuorumResponseData.ReplicaState> toKafka(List<ReplicaProgress> replicas, boolean v2) {
        List<DescribeQuorumResponseData.ReplicaState> out = new ArrayList<>(replicas.size());
        for (ReplicaProgress replica : replicas) {
            out.add(new DescribeQuorumResponseData.ReplicaState()
                    .setReplicaId(replica.replicaId())
                    .setReplicaDirectoryId(v2 ? toKafka(replica.directoryId()) : Uuid.ZERO_UUID)
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
                    fromKafka(replica.replicaDirectoryId()),
                    replica.logEndOffset(),
                    replica.lastFetchTimestamp(),
                    replica.lastCaughtUpTimestamp()));
        }
        return out;
    }

    private static List<VoterSet.Voter> nodesFromKafka(DescribeQuorumResponseData.NodeCollection nodes) {
        List<VoterSet.Voter> out = new ArrayList<>();
        for (DescribeQuorumResponseData.Node node : nodes) {
            SortedMap<String, VoterSet.Endpoint> endpoints = new TreeMap<>();
            for (DescribeQuorumResponseData.Listener listener : node.listeners()) {
                endpoints.put(listener.name(), new VoterSet.Endpoint(listener.host(), listener.port()));
            }
            out.add(new VoterSet.Voter(node.nodeId(), VoterSet.Voter.NO_DIRECTORY_ID, endpoints));
        }
        return out;
    }

    static Uuid toKafka(UUID directoryId) {
        return new Uuid(directoryId.getMostSignificantBits(), directoryId.getLeastSignificantBits());
    }

    static UUID fromKafka(Uuid directoryId) {
        return new UUID(directoryId.getMostSignificantBits(), directoryId.getLeastSignificantBits());
    }
}

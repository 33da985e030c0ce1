package io.varve.broker.raft;

import static io.varve.broker.raft.Partitions.checkPartition;
import static io.varve.broker.raft.Partitions.checkTopic;
import static io.varve.broker.raft.Partitions.only;
import static io.varve.broker.raft.Partitions.onlyOrNull;

import io.varve.broker.protocol.WireRecords;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.FetchRequest;
import io.varve.raft.core.message.FetchResponse;
import io.varve.raft.core.message.FetchSnapshotRequest;
import io.varve.raft.core.message.FetchSnapshotResponse;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OffsetAndEpoch;
import io.varve.raft.core.message.RaftMessage;
import io.varve.raft.core.message.SnapshotId;
import io.varve.storage.records.RaftBatches;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchSnapshotRequestData;
import org.apache.kafka.common.message.FetchSnapshotResponseData;

/**
 * Fetch (v12-18) for {@code __cluster_metadata-0} as KRaft replicas send it, and FetchSnapshot (v0-1).
 * The fetcher is named by {@code ReplicaState.ReplicaId} from v15 and by the top-level {@code ReplicaId}
 * before; the topic by {@code TopicId} (the metadata topic's fixed id) from v13 and by name before. The
 * core's {@code maxEntries} does not travel: a fetch carries byte limits and the receiver applies its own
 * entry limit. Entries travel as v2 record batches ({@link RaftBatches}).
 */
final class FetchMessages {
    /** KIP-853: the fetcher's directory id travels from Fetch v17. */
    private static final short REPLICA_DIRECTORY_ID_VERSION = 17;

    private FetchMessages() {}

    static FetchRequestData toKafka(FetchRequest request, short version, RaftWireMapping.Limits limits) {
        if (request.maxWaitMs() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("maxWaitMs " + request.maxWaitMs() + " does not fit the wire's int32");
        }
        FetchRequestData.FetchPartition partition = new FetchRequestData.FetchPartition()
                .setPartition(RaftApis.METADATA_PARTITION)
                .setCurrentLeaderEpoch(request.currentLeaderEpoch())
                .setFetchOffset(request.fetchOffset())
                .setLastFetchedEpoch(request.lastFetchedEpoch())
                .setPartitionMaxBytes(limits.fetchMaxBytes());
        if (version >= REPLICA_DIRECTORY_ID_VERSION) {
            partition.setReplicaDirectoryId(AdminMessages.toKafka(request.replicaDirectoryId()));
        }
        FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setPartitions(List.of(partition));
        if (version >= 13) {
            topic.setTopicId(RaftApis.METADATA_TOPIC_ID);
        } else {
            topic.setTopic(RaftApis.METADATA_TOPIC);
        }
        FetchRequestData data = new FetchRequestData()
                .setClusterId(request.clusterId())
                .setMaxWaitMs((int) request.maxWaitMs())
                .setMinBytes(0)
                .setMaxBytes(limits.fetchMaxBytes())
                .setTopics(List.of(topic));
        if (version >= 15) {
            data.setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(request.replicaId()));
        } else {
            data.setReplicaId(request.replicaId());
        }
        return data;
    }

    static FetchRequest fromKafka(FetchRequestData data, short version, RaftWireMapping.Limits limits) {
        FetchRequestData.FetchTopic topic = only(data.topics(), "topic");
        if (version >= 13) {
            checkTopicId(topic.topicId());
        } else {
            checkTopic(topic.topic());
        }
        FetchRequestData.FetchPartition partition = only(topic.partitions(), "partition");
        checkPartition(partition.partition());
        return new FetchRequest(
                data.clusterId(),
                version >= 15 ? data.replicaState().replicaId() : data.replicaId(),
                partition.currentLeaderEpoch(),
                partition.fetchOffset(),
                partition.lastFetchedEpoch(),
                limits.maxFetchEntries(),
                data.maxWaitMs(),
                version >= REPLICA_DIRECTORY_ID_VERSION
                        ? AdminMessages.fromKafka(partition.replicaDirectoryId())
                        : io.varve.raft.core.message.VoterSet.Voter.NO_DIRECTORY_ID);
    }

    static FetchResponseData toKafka(FetchResponse response, short version) {
        FetchResponseData.PartitionData partition = new FetchResponseData.PartitionData()
                .setPartitionIndex(RaftApis.METADATA_PARTITION)
                .setErrorCode(response.error().code())
                .setHighWatermark(response.highWatermark())
                .setLogStartOffset(response.logStartOffset())
                .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch()
                        .setLeaderId(response.leaderId())
                        .setLeaderEpoch(response.leaderEpoch()))
                .setRecords(WireRecords.of(encode(response.records())));
        response.divergingEpoch()
                .ifPresent(d -> partition.setDivergingEpoch(new FetchResponseData.EpochEndOffset()
                        .setEpoch(d.epoch())
                        .setEndOffset(d.offset())));
        response.snapshotId()
                .ifPresent(s -> partition.setSnapshotId(new FetchResponseData.SnapshotId()
                        .setEndOffset(s.endOffset())
                        .setEpoch(s.epoch())));
        FetchResponseData.FetchableTopicResponse topic =
                new FetchResponseData.FetchableTopicResponse().setPartitions(List.of(partition));
        if (version >= 13) {
            topic.setTopicId(RaftApis.METADATA_TOPIC_ID);
        } else {
            topic.setTopic(RaftApis.METADATA_TOPIC);
        }
        return new FetchResponseData()
                .setErrorCode(WireErrors.topLevelCode(response.error()))
                .setResponses(List.of(topic));
    }

    static FetchResponse fromKafka(FetchResponseData data, short version) {
        FetchResponseData.FetchableTopicResponse topic = onlyOrNull(data.responses(), "topic");
        FetchResponseData.PartitionData partition = topic == null ? null : only(topic.partitions(), "partition");
        if (partition == null) {
            return FetchResponse.error(WireErrors.fromCode(data.errorCode()), RaftMessage.NO_ID, -1);
        }
        if (version >= 13) {
            checkTopicId(topic.topicId());
        } else {
            checkTopic(topic.topic());
        }
        checkPartition(partition.partitionIndex());
        FetchResponseData.EpochEndOffset diverging = partition.divergingEpoch();
        FetchResponseData.SnapshotId snapshot = partition.snapshotId();
        ByteBuffer records = WireRecords.bytesOrNull(partition.records());
        return new FetchResponse(
                WireErrors.decode(data.errorCode(), partition.errorCode()),
                partition.currentLeader().leaderId(),
                partition.currentLeader().leaderEpoch(),
                partition.highWatermark(),
                partition.logStartOffset(),
                diverging.epoch() >= 0
                        ? Optional.of(new OffsetAndEpoch(diverging.endOffset(), diverging.epoch()))
                        : Optional.empty(),
                snapshot.endOffset() >= 0
                        ? Optional.of(new SnapshotId(snapshot.endOffset(), snapshot.epoch()))
                        : Optional.empty(),
                records == null ? List.of() : decode(records));
    }

    static FetchSnapshotRequestData toKafka(FetchSnapshotRequest request) {
        FetchSnapshotRequestData.PartitionSnapshot partition = new FetchSnapshotRequestData.PartitionSnapshot()
                .setPartition(RaftApis.METADATA_PARTITION)
                .setCurrentLeaderEpoch(request.currentLeaderEpoch())
                .setSnapshotId(new FetchSnapshotRequestData.SnapshotId()
                        .setEndOffset(request.snapshotId().endOffset())
                        .setEpoch(request.snapshotId().epoch()))
                .setPosition(request.position());
        return new FetchSnapshotRequestData()
                .setClusterId(request.clusterId())
                .setReplicaId(request.replicaId())
                .setMaxBytes(request.maxBytes())
                .setTopics(List.of(new FetchSnapshotRequestData.TopicSnapshot()
                        .setName(RaftApis.METADATA_TOPIC)
                        .setPartitions(List.of(partition))));
    }

    static FetchSnapshotRequest fromKafka(FetchSnapshotRequestData data) {
        FetchSnapshotRequestData.TopicSnapshot topic = only(data.topics(), "topic");
        checkTopic(topic.name());
        FetchSnapshotRequestData.PartitionSnapshot partition = only(topic.partitions(), "partition");
        checkPartition(partition.partition());
        return new FetchSnapshotRequest(
                data.clusterId(),
                data.replicaId(),
                partition.currentLeaderEpoch(),
                new SnapshotId(
                        partition.snapshotId().endOffset(),
                        partition.snapshotId().epoch()),
                partition.position(),
                data.maxBytes());
    }

    static FetchSnapshotResponseData toKafka(FetchSnapshotResponse response) {
        SnapshotId id = response.snapshotId();
        FetchSnapshotResponseData.PartitionSnapshot partition = new FetchSnapshotResponseData.PartitionSnapshot()
                .setIndex(RaftApis.METADATA_PARTITION)
                .setErrorCode(response.error().code())
                .setSnapshotId(new FetchSnapshotResponseData.SnapshotId()
                        .setEndOffset(id == null ? -1 : id.endOffset())
                        .setEpoch(id == null ? -1 : id.epoch()))
                .setCurrentLeader(new FetchSnapshotResponseData.LeaderIdAndEpoch()
                        .setLeaderId(response.leaderId())
                        .setLeaderEpoch(response.leaderEpoch()))
                .setSize(response.size())
                .setPosition(response.position())
                .setUnalignedRecords(WireRecords.of(ByteBuffer.wrap(response.bytes())));
        return new FetchSnapshotResponseData()
                .setErrorCode(WireErrors.topLevelCode(response.error()))
                .setTopics(List.of(new FetchSnapshotResponseData.TopicSnapshot()
                        .setName(RaftApis.METADATA_TOPIC)
                        .setPartitions(List.of(partition))));
    }

    static FetchSnapshotResponse fromKafka(FetchSnapshotResponseData data) {
        FetchSnapshotResponseData.TopicSnapshot topic = onlyOrNull(data.topics(), "topic");
        FetchSnapshotResponseData.PartitionSnapshot partition =
                topic == null ? null : only(topic.partitions(), "partition");
        if (partition == null) {
            return FetchSnapshotResponse.error(WireErrors.fromCode(data.errorCode()), RaftMessage.NO_ID, -1);
        }
        checkTopic(topic.name());
        checkPartition(partition.index());
        FetchSnapshotResponseData.SnapshotId id = partition.snapshotId();
        ByteBuffer chunk = WireRecords.bytesOrNull(partition.unalignedRecords());
        byte[] bytes = new byte[chunk == null ? 0 : chunk.remaining()];
        if (chunk != null) {
            chunk.get(bytes);
        }
        return new FetchSnapshotResponse(
                WireErrors.decode(data.errorCode(), partition.errorCode()),
                partition.currentLeader().leaderId(),
                partition.currentLeader().leaderEpoch(),
                id.endOffset() >= 0 && id.epoch() >= 0 ? new SnapshotId(id.endOffset(), id.epoch()) : null,
                partition.size(),
                partition.position(),
                bytes);
    }

    private static void checkTopicId(org.apache.kafka.common.Uuid topicId) {
        if (!RaftApis.METADATA_TOPIC_ID.equals(topicId)) {
            throw new InvalidRaftMessageException("topic id " + topicId + " is not the metadata topic's");
        }
    }

    private static ByteBuffer encode(List<LogEntry> entries) {
        List<RaftBatches.Entry> out = new ArrayList<>(entries.size());
        for (LogEntry entry : entries) {
            short type =
                    switch (entry.type()) {
                        case DATA -> RaftBatches.DATA;
                        case LEADER_CHANGE -> RaftBatches.LEADER_CHANGE;
                        case VOTERS -> RaftBatches.VOTERS;
                    };
            out.add(new RaftBatches.Entry(entry.offset(), entry.epoch(), type, entry.payload()));
        }
        return RaftBatches.build(out);
    }

    private static List<LogEntry> decode(ByteBuffer batches) {
        List<LogEntry> out = new ArrayList<>();
        for (RaftBatches.Entry entry : RaftBatches.read(batches, Integer.MAX_VALUE)) {
            EntryType type;
            if (entry.controlType() == RaftBatches.DATA) {
                type = EntryType.DATA;
            } else if (entry.controlType() == RaftBatches.LEADER_CHANGE) {
                type = EntryType.LEADER_CHANGE;
            } else if (entry.controlType() == RaftBatches.VOTERS) {
                type = EntryType.VOTERS;
            } else {
                throw new InvalidRaftMessageException("control record type " + entry.controlType() + " at offset "
                        + entry.offset() + " has no Raft entry type");
            }
            out.add(new LogEntry(entry.offset(), entry.epoch(), type, entry.value()));
        }
        return out;
    }
}

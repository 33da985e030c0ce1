package io.varve.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.FetchRequest;
import io.varve.raft.core.message.FetchResponse;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.VoteRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.LeaderChangeMessage;
import org.apache.kafka.common.message.VoteRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * Messages built field by field the way a Kafka 4.4 controller fills them (directory ids, replica epochs,
 * tagged fields the core does not use), serialised with kafka-clients' own {@code MessageUtil}, and read
 * back through the mapping. Also what the mapping refuses.
 */
class KafkaBuiltRaftMessagesTest {
    private final RaftWireMapping mapping =
            new RaftWireMapping(RaftWireMappingTest.LOCAL_ID, RaftWireMappingTest.LIMITS);

    @Test
    void aFetchRequestAsKafkasRaftClientSendsItAtV17ReadsBackAsTheCoresFetch() {
        short version = 17;
        Uuid directoryId = Uuid.randomUuid();
        FetchRequestData kafka = new FetchRequestData()
                .setClusterId("cluster-a")
                .setReplicaState(
                        new FetchRequestData.ReplicaState().setReplicaId(3).setReplicaEpoch(-1))
                .setMaxWaitMs(500)
                .setMinBytes(0)
                .setMaxBytes(8 * 1024 * 1024)
                .setTopics(List.of(new FetchRequestData.FetchTopic()
                        .setTopicId(Uuid.METADATA_TOPIC_ID)
                        .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                .setPartition(0)
                                .setCurrentLeaderEpoch(8)
                                .setFetchOffset(1_000)
                                .setLastFetchedEpoch(7)
                                .setLogStartOffset(-1)
                                .setPartitionMaxBytes(8 * 1024 * 1024)
                                .setReplicaDirectoryId(directoryId)))));
        FetchRequest fetch = (FetchRequest) mapping.fromKafka(viaMessageUtil(kafka, true, version), version);
        assertThat(fetch)
                .isEqualTo(new FetchRequest(
                        "cluster-a",
                        3,
                        8,
                        1_000,
                        7,
                        RaftWireMappingTest.LIMITS.maxFetchEntries(),
                        500,
                        new java.util.UUID(
                                directoryId.getMostSignificantBits(), directoryId.getLeastSignificantBits())));
    }

    @Test
    void aPreVoteAsKafkaSendsItAtV2ReadsBackAsTheCoresPreVote() {
        short version = 2;
        VoteRequestData kafka =
                new VoteRequestData().setClusterId("cluster-a").setVoterId(RaftWireMappingTest.LOCAL_ID);
        kafka.topics()
                .add(new VoteRequestData.TopicData()
                        .setTopicName("__cluster_metadata")
                        .setPartitions(List.of(new VoteRequestData.PartitionData()
                                .setPartitionIndex(0)
                                .setReplicaEpoch(7)
                                .setReplicaId(1)
                                .setReplicaDirectoryId(Uuid.randomUuid())
                                .setVoterDirectoryId(Uuid.randomUuid())
                                .setLastOffsetEpoch(6)
                                .setLastOffset(120)
                                .setPreVote(true))));
        assertThat(mapping.fromKafka(viaMessageUtil(kafka, true, version), version))
                .isEqualTo(new VoteRequest("cluster-a", RaftWireMappingTest.LOCAL_ID, 7, 1, 6, 120, true));
    }

    @Test
    void aFetchResponseWithBatchesKafkaBuiltReadsBackEntryByEntry() {
        short version = 18;
        ByteBuffer batches = ByteBuffer.allocate(4096);
        batches.put(MemoryRecords.withLeaderChangeMessage(
                        40, 0, 5, ByteBuffer.allocate(256), new LeaderChangeMessage().setLeaderId(1))
                .buffer());
        batches.put(MemoryRecords.withRecords(
                        41,
                        Compression.NONE,
                        5,
                        new SimpleRecord(null, "x".getBytes(StandardCharsets.UTF_8)),
                        new SimpleRecord(null, "y".getBytes(StandardCharsets.UTF_8)))
                .buffer());
        batches.flip();
        FetchResponseData kafka = new FetchResponseData()
                .setResponses(List.of(new FetchResponseData.FetchableTopicResponse()
                        .setTopicId(Uuid.METADATA_TOPIC_ID)
                        .setPartitions(List.of(new FetchResponseData.PartitionData()
                                .setPartitionIndex(0)
                                .setHighWatermark(42)
                                .setLogStartOffset(0)
                                .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch()
                                        .setLeaderId(1)
                                        .setLeaderEpoch(5))
                                .setRecords(MemoryRecords.readableRecords(batches))))));
        FetchResponse fetch = (FetchResponse) mapping.fromKafka(viaMessageUtil(kafka, false, version), version);
        assertThat(fetch.error()).isEqualTo(RaftError.NONE);
        assertThat(fetch.leaderId()).isEqualTo(1);
        assertThat(fetch.highWatermark()).isEqualTo(42);
        assertThat(fetch.records()).extracting(LogEntry::offset).containsExactly(40L, 41L, 42L);
        assertThat(fetch.records())
                .extracting(LogEntry::type)
                .containsExactly(EntryType.LEADER_CHANGE, EntryType.DATA, EntryType.DATA);
        assertThat(fetch.records()).extracting(LogEntry::epoch).containsOnly(5);
        assertThat(fetch.records().get(2).payload()).isEqualTo("y".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theCoresFetchResponseCarriesItsEntriesAsCrcCheckedBatches() {
        List<LogEntry> entries = RaftWireMappingTest.entries();
        FetchResponse sent = new FetchResponse(
                RaftError.NONE, 1, 8, 108, 0, java.util.Optional.empty(), java.util.Optional.empty(), entries);
        FetchResponseData kafka = (FetchResponseData) mapping.toKafka(sent, (short) 18);
        ByteBuffer wire =
                ((MemoryRecords) kafka.responses().get(0).partitions().get(0).records()).buffer();
        assertThat(MemoryRecords.readableRecords(wire.duplicate()).batches())
                .hasSize(7) // [data, data] [leader change] [data] [voters] [data] [leader change] [data]
                .allSatisfy(batch -> assertThat(batch.isValid()).isTrue());
        FetchResponse back =
                (FetchResponse) mapping.fromKafka(RaftWireMappingTest.reread(kafka, false, (short) 18), (short) 18);
        assertThat(back.records()).isEqualTo(entries);
    }

    @Test
    void aMessageForAnotherTopicOrPartitionIsRefused() {
        VoteRequestData otherTopic = new VoteRequestData().setClusterId("c");
        otherTopic
                .topics()
                .add(new VoteRequestData.TopicData()
                        .setTopicName("orders")
                        .setPartitions(List.of(new VoteRequestData.PartitionData().setPartitionIndex(0))));
        assertThatThrownBy(() -> mapping.fromKafka(otherTopic, (short) 2))
                .isInstanceOf(InvalidRaftMessageException.class)
                .hasMessageContaining("orders");
        FetchRequestData otherId = new FetchRequestData()
                .setTopics(List.of(new FetchRequestData.FetchTopic()
                        .setTopicId(Uuid.randomUuid())
                        .setPartitions(List.of(new FetchRequestData.FetchPartition()))));
        assertThatThrownBy(() -> mapping.fromKafka(otherId, (short) 17))
                .isInstanceOf(InvalidRaftMessageException.class);
        FetchRequestData twoPartitions = new FetchRequestData()
                .setTopics(List.of(new FetchRequestData.FetchTopic()
                        .setTopicId(Uuid.METADATA_TOPIC_ID)
                        .setPartitions(List.of(
                                new FetchRequestData.FetchPartition(),
                                new FetchRequestData.FetchPartition().setPartition(1)))));
        assertThatThrownBy(() -> mapping.fromKafka(twoPartitions, (short) 17))
                .isInstanceOf(InvalidRaftMessageException.class)
                .hasMessageContaining("one partition");
    }

    private static ApiMessage viaMessageUtil(ApiMessage message, boolean request, short version) {
        ByteBufferAccessor written = MessageUtil.toByteBufferAccessor(message, version);
        ByteBuffer bytes = written.buffer();
        bytes.rewind();
        ApiKeys api = ApiKeys.forId(message.apiKey());
        ApiMessage fresh = request ? api.messageType.newRequest() : api.messageType.newResponse();
        fresh.read(new ByteBufferAccessor(bytes), version);
        return fresh;
    }
}

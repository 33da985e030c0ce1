package io.varve.it;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Requests built from kafka-clients' generated message classes, for tests that talk to the broker with a
 * {@link RawClient}. Versions are ones that address topics by name.
 */
final class WireRequests {
    static final short PRODUCE_VERSION = 11;
    static final short FETCH_VERSION = 12;
    static final short LIST_OFFSETS_VERSION = 7;
    static final short INIT_PRODUCER_ID_VERSION = 4;
    static final short API_VERSIONS_VERSION = 3;

    /** ListOffsets' timestamp for "the log end offset" (the high watermark for a consumer). */
    static final long LATEST_TIMESTAMP = -1L;

    private WireRequests() {}

    static ProduceRequestData produce(String topic, int partition, short acks, MemoryRecords records) {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData()
                .setName(topic)
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                        .setIndex(partition)
                        .setRecords(records))));
        return new ProduceRequestData()
                .setTransactionalId(null)
                .setAcks(acks)
                .setTimeoutMs(10_000)
                .setTopicData(topics);
    }

    /** Sends one single-partition produce request with acks=all and returns that partition's answer. */
    static PartitionProduceResponse produce(RawClient client, String topic, int partition, MemoryRecords records)
            throws IOException {
        return produce(client, topic, partition, (short) -1, records);
    }

    static PartitionProduceResponse produce(
            RawClient client, String topic, int partition, short acks, MemoryRecords records) throws IOException {
        ProduceResponseData response = client.send(produce(topic, partition, acks, records), PRODUCE_VERSION);
        return response.responses().iterator().next().partitionResponses().get(0);
    }

    static Errors errorOf(PartitionProduceResponse response) {
        return Errors.forCode(response.errorCode());
    }

    static FetchRequestData fetch(String topic, int partition, long fetchOffset, int maxWaitMs) {
        return new FetchRequestData()
                .setReplicaId(-1)
                .setMaxWaitMs(maxWaitMs)
                .setMinBytes(1)
                .setMaxBytes(1 << 20)
                .setIsolationLevel((byte) 0)
                .setSessionId(0)
                .setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic()
                        .setTopic(topic)
                        .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                .setPartition(partition)
                                .setFetchOffset(fetchOffset)
                                .setPartitionMaxBytes(1 << 20)
                                .setCurrentLeaderEpoch(-1)
                                .setLogStartOffset(-1)))));
    }

    /** Fetches one partition without waiting and returns that partition's answer. */
    static FetchResponseData.PartitionData fetch(RawClient client, String topic, int partition, long fetchOffset)
            throws IOException {
        FetchResponseData response = client.send(fetch(topic, partition, fetchOffset, 0), FETCH_VERSION);
        return response.responses().get(0).partitions().get(0);
    }

    static ListOffsetsRequestData listOffsets(String topic, int partition, long timestamp) {
        return new ListOffsetsRequestData()
                .setReplicaId(-1)
                .setIsolationLevel((byte) 0)
                .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                        .setName(topic)
                        .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                .setPartitionIndex(partition)
                                .setTimestamp(timestamp)
                                .setCurrentLeaderEpoch(-1)))));
    }

    /** The log end offset a consumer sees (ListOffsets LATEST); fails on an error answer. */
    static long latestOffset(RawClient client, String topic, int partition) throws IOException {
        ListOffsetsResponseData response =
                client.send(listOffsets(topic, partition, LATEST_TIMESTAMP), LIST_OFFSETS_VERSION);
        ListOffsetsResponseData.ListOffsetsPartitionResponse p =
                response.topics().get(0).partitions().get(0);
        if (p.errorCode() != Errors.NONE.code()) {
            throw new IllegalStateException(
                    "ListOffsets for " + topic + "-" + partition + " failed: " + Errors.forCode(p.errorCode()));
        }
        return p.offset();
    }

    /** A fresh idempotent producer id and epoch from InitProducerId. */
    static InitProducerIdResponseData initProducerId(RawClient client) throws IOException {
        InitProducerIdResponseData response = client.send(
                new InitProducerIdRequestData()
                        .setTransactionalId(null)
                        .setTransactionTimeoutMs(60_000)
                        .setProducerId(-1L)
                        .setProducerEpoch((short) -1),
                INIT_PRODUCER_ID_VERSION);
        if (response.errorCode() != Errors.NONE.code()) {
            throw new IllegalStateException("InitProducerId failed: " + Errors.forCode(response.errorCode()));
        }
        return response;
    }

    static SimpleRecord record(String key, String value) {
        return new SimpleRecord(System.currentTimeMillis(), key.getBytes(UTF_8), value.getBytes(UTF_8));
    }

    static MemoryRecords idempotentBatch(long producerId, short epoch, int baseSequence, SimpleRecord... records) {
        return MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, epoch, baseSequence, records);
    }

    static ApiVersionsRequestData apiVersions() {
        return new ApiVersionsRequestData().setClientSoftwareName("varve-it").setClientSoftwareVersion("0.1.0");
    }
}

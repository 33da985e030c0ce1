package io.varve.broker.observe;

import io.varve.http.view.ConsoleFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The Kafka requests the console's actions share (a topic's partitions, offsets by time), made through {@link
 * LocalApis} as the console's principal, and how a Kafka error becomes the console's HTTP status.
 */
final class ConsoleRequests {
    /** ListOffsets' timestamps for the earliest and the latest offset. */
    static final long EARLIEST = -2;

    static final long LATEST = -1;
    /** read_committed: the latest offset is the last stable offset. */
    static final byte READ_COMMITTED = 1;

    final LocalApis apis;
    /** Whom the requests come from: the principal and its address. */
    final LocalApis.Client client;

    ConsoleRequests(LocalApis apis, LocalApis.Client client) {
        this.apis = apis;
        this.client = client;
    }

    /** The partition ids of {@code topic} (Metadata), sorted. */
    CompletableFuture<List<Integer>> partitions(String topic) {
        MetadataRequestData request = new MetadataRequestData().setAllowAutoTopicCreation(false);
        request.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(topic));
        return apis.<MetadataResponseData>call(ApiKeys.METADATA, request, client)
                .thenApply(response -> {
                    MetadataResponseData.MetadataResponseTopic t =
                            response.topics().iterator().next();
                    check(Errors.forCode(t.errorCode()), "Topic " + topic);
                    List<Integer> ids = new ArrayList<>();
                    t.partitions().forEach(p -> ids.add(p.partitionIndex()));
                    ids.sort(null);
                    return ids;
                });
    }

    /**
     * The offset of each of {@code partitions} at {@code timestampMs} ({@link #EARLIEST}, {@link #LATEST} or a time;
     * -1 where no record is that late), in the order of {@code partitions}.
     */
    CompletableFuture<long[]> offsets(String topic, List<Integer> partitions, long timestampMs) {
        ListOffsetsRequestData.ListOffsetsTopic t = new ListOffsetsRequestData.ListOffsetsTopic().setName(topic);
        for (int p : partitions) {
            t.partitions()
                    .add(new ListOffsetsRequestData.ListOffsetsPartition()
                            .setPartitionIndex(p)
                            .setTimestamp(timestampMs)
                            .setCurrentLeaderEpoch(-1));
        }
        ListOffsetsRequestData request = new ListOffsetsRequestData()
                .setReplicaId(-1)
                .setIsolationLevel(READ_COMMITTED)
                .setTopics(new ArrayList<>(List.of(t)));
        return apis.<ListOffsetsResponseData>call(ApiKeys.LIST_OFFSETS, request, client)
                .thenApply(response -> {
                    long[] out = new long[partitions.size()];
                    for (ListOffsetsResponseData.ListOffsetsTopicResponse topicResponse : response.topics()) {
                        for (ListOffsetsResponseData.ListOffsetsPartitionResponse p : topicResponse.partitions()) {
                            check(Errors.forCode(p.errorCode()), "Partition " + topic + "-" + p.partitionIndex());
                            out[partitions.indexOf(p.partitionIndex())] = p.offset();
                        }
                    }
                    return out;
                });
    }

    /**
     * Each partition's earliest and latest (last stable) offset, and with {@code timestampMs} not null its offset at
     * that time (-1 where no record is that late), in the order of {@code partitions}.
     */
    record Bounds(long[] earliest, long[] latest, long[] atTime) {}

    CompletableFuture<Bounds> bounds(String topic, List<Integer> partitions, Long timestampMs) {
        CompletableFuture<long[]> earliest = offsets(topic, partitions, EARLIEST);
        CompletableFuture<long[]> latest = offsets(topic, partitions, LATEST);
        CompletableFuture<long[]> atTime =
                timestampMs == null ? CompletableFuture.completedFuture(null) : offsets(topic, partitions, timestampMs);
        return CompletableFuture.allOf(earliest, latest, atTime)
                .thenApply(v -> new Bounds(earliest.join(), latest.join(), atTime.join()));
    }

    /** Throws the console's failure for {@code error}, unless it is NONE. */
    static void check(Errors error, String what) {
        check(error, null, what);
    }

    static void check(Errors error, String message, String what) {
        if (error != Errors.NONE) {
            throw failure(error, message, what);
        }
    }

    /** 403 for an authorization failure, 404 for what does not exist, 503 for a retriable error, else 400. */
    static ConsoleFailure failure(Errors error, String message, String what) {
        String text =
                what + ": " + error.name() + ": " + (message == null || message.isEmpty() ? error.message() : message);
        int status;
        if (error.name().endsWith("_AUTHORIZATION_FAILED")) {
            status = 403;
        } else if (error == Errors.UNKNOWN_TOPIC_OR_PARTITION
                || error == Errors.UNKNOWN_TOPIC_ID
                || error == Errors.GROUP_ID_NOT_FOUND
                || error == Errors.RESOURCE_NOT_FOUND) {
            status = 404;
        } else if (error.exception() instanceof org.apache.kafka.common.errors.RetriableException) {
            status = 503;
        } else {
            status = 400;
        }
        return new ConsoleFailure(status, text);
    }
}

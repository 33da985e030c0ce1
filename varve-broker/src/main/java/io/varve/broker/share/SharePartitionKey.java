package io.varve.broker.share;

import org.apache.kafka.common.Uuid;

/** One share-partition: a share group's view of one topic partition. */
public record SharePartitionKey(String groupId, Uuid topicId, int partition) {}

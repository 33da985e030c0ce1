package io.varve.broker.api;

import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A check of a partition's records before they are appended (broker-side schema validation). The produce path calls
 * it only for topics it {@link #appliesTo applies to}, so a topic without it costs one map lookup per partition.
 */
public interface ProduceRecordCheck {
    /** One refused record: its index among the partition's records and why. */
    record RecordError(int index, String message) {}

    boolean appliesTo(TopicInfo topic);

    /** The refused records (empty when every record may be appended). */
    List<RecordError> check(TopicInfo topic, ByteBuffer records);
}

package io.varve.metadata.record;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/** The topic, its partitions and its configs were deleted. */
public record RemoveTopicRecord(Uuid topicId) implements MetadataRecord {

    public RemoveTopicRecord {
        Objects.requireNonNull(topicId, "topicId");
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.REMOVE_TOPIC;
    }
}

package io.varve.metadata.record;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/** A topic was created with this name and id. Its partitions follow as {@link PartitionRecord}s. */
public record TopicRecord(String name, Uuid topicId) implements MetadataRecord {

    public TopicRecord {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(topicId, "topicId");
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.TOPIC;
    }
}

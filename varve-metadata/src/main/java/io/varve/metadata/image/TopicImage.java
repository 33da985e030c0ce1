package io.varve.metadata.image;

import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.TopicRecord;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;

/** One topic: its name, id and partitions by partition id. */
public record TopicImage(String name, Uuid id, Map<Integer, PartitionImage> partitions) {

    public TopicImage {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(id, "id");
        partitions = Map.copyOf(partitions);
    }

    public PartitionImage partition(int partitionId) {
        return partitions.get(partitionId);
    }

    public int numPartitions() {
        return partitions.size();
    }

    void writeRecords(Consumer<MetadataRecord> out) {
        out.accept(new TopicRecord(name, id));
        new TreeMap<>(partitions).forEach((partitionId, partition) -> out.accept(partition.toRecord(id, partitionId)));
    }
}

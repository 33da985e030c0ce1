package io.varve.metadata.image;

import io.varve.metadata.record.PartitionChangeRecord;
import io.varve.metadata.record.PartitionRecord;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/** The changes to one topic within a {@link TopicsDelta}: a created topic, or changed partitions. */
public final class TopicDelta {

    private final TopicImage base;
    private final String name;
    private final Uuid id;
    private final Map<Integer, PartitionImage> changedPartitions = new HashMap<>();

    private TopicDelta(TopicImage base, String name, Uuid id) {
        this.base = base;
        this.name = name;
        this.id = id;
    }

    static TopicDelta created(String name, Uuid id) {
        return new TopicDelta(null, name, id);
    }

    static TopicDelta changed(TopicImage base) {
        return new TopicDelta(base, base.name(), base.id());
    }

    /** True if the topic did not exist in the base image. */
    public boolean isCreated() {
        return base == null;
    }

    /** The topic before this delta, or null if it was created by it. */
    public TopicImage base() {
        return base;
    }

    public String name() {
        return name;
    }

    public Uuid id() {
        return id;
    }

    /** New state of each partition that a record touched, by partition id. */
    public Map<Integer, PartitionImage> changedPartitions() {
        return Collections.unmodifiableMap(changedPartitions);
    }

    void replay(PartitionRecord record) {
        changedPartitions.put(record.partitionId(), PartitionImage.fromRecord(record));
    }

    void replay(PartitionChangeRecord record) {
        PartitionImage current = changedPartitions.get(record.partitionId());
        if (current == null && base != null) {
            current = base.partition(record.partitionId());
        }
        if (current == null) {
            throw new IllegalStateException(
                    "change of unknown partition " + record.partitionId() + " of topic " + name + ": " + record);
        }
        changedPartitions.put(record.partitionId(), current.withChange(record));
    }

    TopicImage apply() {
        Map<Integer, PartitionImage> partitions = new HashMap<>(base == null ? Map.of() : base.partitions());
        partitions.putAll(changedPartitions);
        for (int partitionId = 0; partitionId < partitions.size(); partitionId++) {
            if (!partitions.containsKey(partitionId)) {
                throw new IllegalStateException("topic " + name + " has partitions " + partitions.keySet()
                        + ": ids must run from 0 without gaps");
            }
        }
        if (partitions.isEmpty()) {
            throw new IllegalStateException("topic " + name + " was created without partitions");
        }
        return new TopicImage(name, id, partitions);
    }
}

package io.varve.metadata.image;

import io.varve.metadata.record.MetadataRecord;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;

/** Every topic, by id and by name. Immutable. */
public final class TopicsImage {

    public static final TopicsImage EMPTY = new TopicsImage(Map.of());

    private final Map<Uuid, TopicImage> byId;
    private final Map<String, TopicImage> byName;
    private final int totalPartitions;

    TopicsImage(Map<Uuid, TopicImage> byId) {
        this.byId = Collections.unmodifiableMap(new HashMap<>(byId));
        Map<String, TopicImage> names = new HashMap<>(byId.size() * 2);
        int partitions = 0;
        for (TopicImage topic : byId.values()) {
            TopicImage previous = names.put(topic.name(), topic);
            if (previous != null) {
                throw new IllegalStateException(
                        "two topics named " + topic.name() + ": " + previous.id() + " and " + topic.id());
            }
            partitions += topic.numPartitions();
        }
        this.byName = Collections.unmodifiableMap(names);
        this.totalPartitions = partitions;
    }

    /** The topic with this id, or null. */
    public TopicImage getTopic(Uuid id) {
        return byId.get(id);
    }

    /** The topic with this name, or null. */
    public TopicImage getTopic(String name) {
        return byName.get(name);
    }

    public Map<Uuid, TopicImage> topicsById() {
        return byId;
    }

    public Map<String, TopicImage> topicsByName() {
        return byName;
    }

    public int totalPartitions() {
        return totalPartitions;
    }

    public boolean isEmpty() {
        return byId.isEmpty();
    }

    void writeRecords(Consumer<MetadataRecord> out) {
        byName.keySet().stream().sorted().forEach(name -> byName.get(name).writeRecords(out));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TopicsImage that && byId.equals(that.byId);
    }

    @Override
    public int hashCode() {
        return byId.hashCode();
    }

    @Override
    public String toString() {
        return "TopicsImage(" + byName.keySet() + ")";
    }
}

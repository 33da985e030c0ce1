package io.varve.coordinator.group;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;

/**
 * The topics of the cluster as the coordinator sees them for one event: names, ids, partition counts.
 * Consumer groups resolve subscriptions against it. {@code version} changes whenever the topics change.
 */
public final class TopicsSnapshot {
    public record Topic(String name, Uuid id, int numPartitions, boolean internal) {}

    public static final TopicsSnapshot EMPTY = new TopicsSnapshot(-1, List.of());

    private final long version;
    private final Map<String, Topic> byName = new HashMap<>();
    private final Map<Uuid, Topic> byId = new HashMap<>();

    public TopicsSnapshot(long version, Collection<Topic> topics) {
        this.version = version;
        for (Topic t : topics) {
            byName.put(t.name(), t);
            byId.put(t.id(), t);
        }
    }

    public long version() {
        return version;
    }

    public Topic byName(String name) {
        return byName.get(name);
    }

    public Topic byId(Uuid id) {
        return byId.get(id);
    }

    public Collection<Topic> all() {
        return byName.values();
    }
}

package io.varve.coordinator.group.offset;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import io.varve.coordinator.group.record.OffsetValue;
import org.apache.kafka.common.TopicPartition;

/** Committed offsets by group and partition; the in-memory image of the offset records. */
public final class OffsetStore {
    private final Map<String, Map<TopicPartition, OffsetValue>> byGroup = new HashMap<>();

    public OffsetValue get(String groupId, TopicPartition tp) {
        Map<TopicPartition, OffsetValue> offsets = byGroup.get(groupId);
        return offsets == null ? null : offsets.get(tp);
    }

    public Map<TopicPartition, OffsetValue> offsets(String groupId) {
        Map<TopicPartition, OffsetValue> offsets = byGroup.get(groupId);
        return offsets == null ? Map.of() : Collections.unmodifiableMap(offsets);
    }

    public void put(String groupId, TopicPartition tp, OffsetValue value) {
        byGroup.computeIfAbsent(groupId, g -> new HashMap<>()).put(tp, value);
    }

    public void remove(String groupId, TopicPartition tp) {
        Map<TopicPartition, OffsetValue> offsets = byGroup.get(groupId);
        if (offsets != null) {
            offsets.remove(tp);
            if (offsets.isEmpty()) {
                byGroup.remove(groupId);
            }
        }
    }

    public boolean hasOffsets(String groupId) {
        return byGroup.containsKey(groupId);
    }

    public Set<String> groupIds() {
        return Collections.unmodifiableSet(byGroup.keySet());
    }

    public int size() {
        return byGroup.values().stream().mapToInt(Map::size).sum();
    }
}

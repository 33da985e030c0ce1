package io.varve.coordinator.group.offset;

import io.varve.coordinator.group.record.OffsetValue;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Committed offsets by group and partition, the in-memory image of the offset records, and the transactional
 * offsets still pending by producer id (TxnOffsetCommit before its COMMIT or ABORT marker). Every offset put here
 * takes the next write order, which follows the log's order both live and on replay: when a transaction commits,
 * a pending offset replaces the committed one only if it was written later, as Kafka compares record offsets.
 */
public final class OffsetStore {
    private record Stored(OffsetValue value, long writeOrder) {}

    private final Map<String, Map<TopicPartition, Stored>> byGroup = new HashMap<>();
    private final Map<Long, Map<String, Map<TopicPartition, Stored>>> pendingByProducer = new HashMap<>();
    private long nextWriteOrder;

    public OffsetValue get(String groupId, TopicPartition tp) {
        Map<TopicPartition, Stored> offsets = byGroup.get(groupId);
        Stored s = offsets == null ? null : offsets.get(tp);
        return s == null ? null : s.value;
    }

    /** The group's committed offsets (a copy). */
    public Map<TopicPartition, OffsetValue> offsets(String groupId) {
        Map<TopicPartition, Stored> offsets = byGroup.get(groupId);
        if (offsets == null) {
            return Map.of();
        }
        Map<TopicPartition, OffsetValue> out = new LinkedHashMap<>();
        offsets.forEach((tp, s) -> out.put(tp, s.value));
        return out;
    }

    public void put(String groupId, TopicPartition tp, OffsetValue value) {
        byGroup.computeIfAbsent(groupId, g -> new HashMap<>()).put(tp, new Stored(value, nextWriteOrder++));
    }

    /** Removes the committed offset and every transactional offset pending for it (a tombstone's effect). */
    public void remove(String groupId, TopicPartition tp) {
        removeFrom(byGroup, groupId, tp);
        pendingByProducer.values().removeIf(groups -> {
            removeFrom(groups, groupId, tp);
            return groups.isEmpty();
        });
    }

    private static void removeFrom(Map<String, Map<TopicPartition, Stored>> groups, String groupId, TopicPartition tp) {
        Map<TopicPartition, Stored> offsets = groups.get(groupId);
        if (offsets != null) {
            offsets.remove(tp);
            if (offsets.isEmpty()) {
                groups.remove(groupId);
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

    // ---------------------------------------------------------------- transactional offsets

    /** Stages an offset of the producer's ongoing transaction; invisible until {@link #completeTransaction}. */
    public void putPending(long producerId, String groupId, TopicPartition tp, OffsetValue value) {
        pendingByProducer
                .computeIfAbsent(producerId, p -> new HashMap<>())
                .computeIfAbsent(groupId, g -> new HashMap<>())
                .put(tp, new Stored(value, nextWriteOrder++));
    }

    /** True when some producer's ongoing transaction holds an offset for the group's partition. */
    public boolean hasPending(String groupId, TopicPartition tp) {
        for (Map<String, Map<TopicPartition, Stored>> groups : pendingByProducer.values()) {
            Map<TopicPartition, Stored> offsets = groups.get(groupId);
            if (offsets != null && offsets.containsKey(tp)) {
                return true;
            }
        }
        return false;
    }

    /** True when some producer's ongoing transaction holds an offset for the group. */
    public boolean hasPending(String groupId) {
        return pendingByProducer.values().stream().anyMatch(groups -> groups.containsKey(groupId));
    }

    /** Groups with offsets pending in some transaction. */
    public Set<String> pendingGroupIds() {
        Set<String> out = new HashSet<>();
        pendingByProducer.values().forEach(groups -> out.addAll(groups.keySet()));
        return out;
    }

    /** Partitions of the group with an offset pending in some transaction (for group deletion). */
    public Set<TopicPartition> pendingPartitions(String groupId) {
        Set<TopicPartition> out = new HashSet<>();
        pendingByProducer
                .values()
                .forEach(groups ->
                        out.addAll(groups.getOrDefault(groupId, Map.of()).keySet()));
        return out;
    }

    /**
     * The producer's transaction ended: on commit its pending offsets become committed (unless a later plain commit
     * already replaced them), on abort they are dropped. Returns how many offsets became committed.
     */
    public int completeTransaction(long producerId, boolean commit) {
        Map<String, Map<TopicPartition, Stored>> groups = pendingByProducer.remove(producerId);
        if (groups == null || !commit) {
            return 0;
        }
        int applied = 0;
        for (Map.Entry<String, Map<TopicPartition, Stored>> g : groups.entrySet()) {
            for (Map.Entry<TopicPartition, Stored> e : g.getValue().entrySet()) {
                Stored existing = byGroup.getOrDefault(g.getKey(), Map.of()).get(e.getKey());
                if (existing == null || existing.writeOrder < e.getValue().writeOrder) {
                    byGroup.computeIfAbsent(g.getKey(), k -> new HashMap<>()).put(e.getKey(), e.getValue());
                    applied++;
                }
            }
        }
        return applied;
    }

    /** Producers with an ongoing transaction holding offsets here. */
    public int pendingProducerCount() {
        return pendingByProducer.size();
    }
}

package io.varve.coordinator.group.share;

import io.varve.coordinator.group.TopicsSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * The share groups' "simple" assignor: every member subscribed to a topic gets partitions of it. With at least as
 * many partitions as subscribers, each partition goes to one member, round robin; with more subscribers than
 * partitions, each subscriber gets one partition, round robin, so a partition is shared by several members — records
 * are still delivered to one member at a time by the share-partition's acquisition locks. Deterministic: members in
 * id order, partitions in (topic name, index) order.
 */
public final class SimpleShareAssignor {
    public static final String NAME = "simple";

    private SimpleShareAssignor() {}

    /** memberId → its subscribed topic names, to memberId → topic id → partitions (every member has an entry). */
    public static Map<String, Map<Uuid, Set<Integer>>> assign(
            SortedMap<String, List<String>> subscriptions, TopicsSnapshot topics) {
        Map<String, Map<Uuid, Set<Integer>>> out = new HashMap<>();
        subscriptions.keySet().forEach(m -> out.put(m, new HashMap<>()));
        Set<String> topicNames = new TreeSet<>();
        subscriptions.values().forEach(topicNames::addAll);
        for (String name : topicNames) {
            TopicsSnapshot.Topic t = topics.byName(name);
            if (t == null || t.numPartitions() == 0) {
                continue;
            }
            List<String> subscribers = new ArrayList<>();
            subscriptions.forEach((m, names) -> {
                if (names.contains(name)) {
                    subscribers.add(m);
                }
            });
            int partitions = t.numPartitions();
            int rounds = Math.max(partitions, subscribers.size());
            for (int i = 0; i < rounds; i++) {
                String member = subscribers.get(i % subscribers.size());
                out.get(member).computeIfAbsent(t.id(), id -> new HashSet<>()).add(i % partitions);
            }
        }
        return out;
    }
}

package io.varve.coordinator.group.assignor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * For each topic, its subscribers in member id order get contiguous ranges of partitions; the first
 * {@code partitions % subscribers} get one more. Deterministic: the same members always get the same ranges.
 */
public final class RangeAssignor implements PartitionAssignor {
    @Override
    public String name() {
        return "range";
    }

    @Override
    public Map<String, Map<Uuid, Set<Integer>>> assign(Spec spec) {
        Map<String, Map<Uuid, Set<Integer>>> result = new LinkedHashMap<>();
        spec.members().forEach(m -> result.put(m.memberId(), Assignments.mutable()));
        for (Map.Entry<Uuid, Integer> topic : new TreeMap<>(spec.partitionsPerTopic()).entrySet()) {
            List<String> subscribers = new ArrayList<>();
            for (MemberSpec m : spec.members()) {
                if (m.subscribedTopicIds().contains(topic.getKey())) {
                    subscribers.add(m.memberId());
                }
            }
            if (subscribers.isEmpty()) {
                continue;
            }
            int partitions = topic.getValue();
            int base = partitions / subscribers.size();
            int extra = partitions % subscribers.size();
            int next = 0;
            for (int i = 0; i < subscribers.size(); i++) {
                int count = base + (i < extra ? 1 : 0);
                for (int p = next; p < next + count; p++) {
                    Assignments.add(result.get(subscribers.get(i)), topic.getKey(), p);
                }
                next += count;
            }
        }
        return result;
    }
}

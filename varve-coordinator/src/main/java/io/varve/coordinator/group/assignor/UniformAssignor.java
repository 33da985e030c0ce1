package io.varve.coordinator.group.assignor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * Balanced and sticky: members keep the partitions of their previous target they still subscribe to, partitions
 * without an owner go to the least loaded eligible member, then partitions move one at a time from the most to
 * the least loaded eligible member until no two members differ by more than one (or no eligible move is left).
 * Each move lowers the sum of squared loads, so the balancing loop ends; with identical subscriptions the
 * result is perfectly balanced and moves the fewest partitions.
 */
public final class UniformAssignor implements PartitionAssignor {
    @Override
    public String name() {
        return "uniform";
    }

    @Override
    public Map<String, Map<Uuid, Set<Integer>>> assign(Spec spec) {
        List<MemberSpec> members = spec.members();
        Map<String, TreeSet<TopicPartitionId>> owned = new LinkedHashMap<>();
        Map<TopicPartitionId, String> owner = new HashMap<>();
        members.forEach(m -> owned.put(m.memberId(), new TreeSet<>()));

        for (MemberSpec m : members) {
            Map<Uuid, Set<Integer>> previous = spec.currentTarget().getOrDefault(m.memberId(), Map.of());
            for (Map.Entry<Uuid, Set<Integer>> e : previous.entrySet()) {
                Integer count = spec.partitionsPerTopic().get(e.getKey());
                if (count == null || !m.subscribedTopicIds().contains(e.getKey())) {
                    continue;
                }
                for (int p : e.getValue()) {
                    TopicPartitionId tp = new TopicPartitionId(e.getKey(), p);
                    if (p < count && !owner.containsKey(tp)) {
                        owner.put(tp, m.memberId());
                        owned.get(m.memberId()).add(tp);
                    }
                }
            }
        }

        Map<Uuid, List<MemberSpec>> eligible = new HashMap<>();
        for (Uuid topic : spec.partitionsPerTopic().keySet()) {
            eligible.put(
                    topic,
                    members.stream()
                            .filter(m -> m.subscribedTopicIds().contains(topic))
                            .toList());
        }
        List<TopicPartitionId> unassigned = new ArrayList<>();
        spec.partitionsPerTopic().forEach((topic, count) -> {
            for (int p = 0; p < count; p++) {
                TopicPartitionId tp = new TopicPartitionId(topic, p);
                if (!owner.containsKey(tp) && !eligible.get(topic).isEmpty()) {
                    unassigned.add(tp);
                }
            }
        });
        unassigned.sort(Comparator.<TopicPartitionId>comparingInt(
                        tp -> eligible.get(tp.topicId()).size())
                .thenComparing(Comparator.naturalOrder()));
        for (TopicPartitionId tp : unassigned) {
            MemberSpec least = null;
            for (MemberSpec m : eligible.get(tp.topicId())) {
                if (least == null
                        || owned.get(m.memberId()).size()
                                < owned.get(least.memberId()).size()) {
                    least = m;
                }
            }
            owner.put(tp, least.memberId());
            owned.get(least.memberId()).add(tp);
        }

        balance(members, owned);

        Map<String, Map<Uuid, Set<Integer>>> result = new LinkedHashMap<>();
        owned.forEach((memberId, tps) -> {
            Map<Uuid, Set<Integer>> a = Assignments.mutable();
            tps.forEach(tp -> Assignments.add(a, tp.topicId(), tp.partition()));
            result.put(memberId, a);
        });
        return result;
    }

    private static void balance(List<MemberSpec> members, Map<String, TreeSet<TopicPartitionId>> owned) {
        int total = owned.values().stream().mapToInt(Set::size).sum();
        long maxMoves = (long) total * total + 1;
        for (long moves = 0; moves <= maxMoves; moves++) {
            if (!moveOne(members, owned)) {
                return;
            }
        }
        throw new IllegalStateException("uniform assignor did not converge within " + maxMoves + " moves");
    }

    /** Moves one partition from a heavier to a lighter eligible member (load difference of two or more). */
    private static boolean moveOne(List<MemberSpec> members, Map<String, TreeSet<TopicPartitionId>> owned) {
        List<MemberSpec> byLoadDesc = new ArrayList<>(members);
        byLoadDesc.sort(
                Comparator.<MemberSpec>comparingInt(m -> owned.get(m.memberId()).size())
                        .reversed()
                        .thenComparing(MemberSpec::memberId));
        List<MemberSpec> byLoadAsc = new ArrayList<>(members);
        byLoadAsc.sort(
                Comparator.<MemberSpec>comparingInt(m -> owned.get(m.memberId()).size())
                        .thenComparing(MemberSpec::memberId));
        for (MemberSpec heavy : byLoadDesc) {
            TreeSet<TopicPartitionId> heavyOwned = owned.get(heavy.memberId());
            for (MemberSpec light : byLoadAsc) {
                TreeSet<TopicPartitionId> lightOwned = owned.get(light.memberId());
                if (heavyOwned.size() - lightOwned.size() < 2) {
                    break;
                }
                for (TopicPartitionId tp : heavyOwned.descendingSet()) {
                    if (light.subscribedTopicIds().contains(tp.topicId())) {
                        heavyOwned.remove(tp);
                        lightOwned.add(tp);
                        return true;
                    }
                }
            }
        }
        return false;
    }
}

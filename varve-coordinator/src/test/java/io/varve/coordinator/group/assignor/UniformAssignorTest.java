package io.varve.coordinator.group.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.assignor.PartitionAssignor.MemberSpec;
import io.varve.coordinator.group.assignor.PartitionAssignor.Spec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class UniformAssignorTest {
    private static final Uuid T1 = new Uuid(1, 1);
    private static final Uuid T2 = new Uuid(2, 2);
    private final UniformAssignor assignor = new UniformAssignor();

    private static MemberSpec member(String id, Uuid... topics) {
        return new MemberSpec(id, null, null, Set.of(topics));
    }

    @Test
    void identicalSubscriptionsAreBalancedWithinOnePartition() {
        Map<String, Map<Uuid, Set<Integer>>> a = assignor.assign(new Spec(
                List.of(member("a", T1, T2), member("b", T1, T2), member("c", T1, T2)),
                Map.of(T1, 7, T2, 3),
                Map.of()));
        assertThat(a.values()).extracting(Assignments::count).containsExactlyInAnyOrder(4, 3, 3);
        assertEveryPartitionOnce(a, Map.of(T1, 7, T2, 3));
    }

    @Test
    void aNewMemberTakesOnlyWhatBalanceRequiresFromTheOthers() {
        Map<String, Map<Uuid, Set<Integer>>> before = assignor.assign(
                new Spec(List.of(member("a", T1), member("b", T1), member("c", T1)), Map.of(T1, 12), Map.of()));
        Map<String, Map<Uuid, Set<Integer>>> after = assignor.assign(new Spec(
                List.of(member("a", T1), member("b", T1), member("c", T1), member("d", T1)), Map.of(T1, 12), before));
        int moved = 0;
        for (String m : List.of("a", "b", "c")) {
            assertThat(Assignments.isSubset(after.get(m), before.get(m)))
                    .as("%s only loses partitions", m)
                    .isTrue();
            moved += Assignments.count(before.get(m)) - Assignments.count(after.get(m));
        }
        assertThat(moved).isEqualTo(3);
        assertThat(Assignments.count(after.get("d"))).isEqualTo(3);
    }

    @Test
    void randomSubscriptionsAssignEveryPartitionOnceToASubscriber() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int run = 0; run < 200; run++) {
            int topicCount = 1 + random.nextInt(4);
            Map<Uuid, Integer> partitions = new HashMap<>();
            List<Uuid> topics = new ArrayList<>();
            for (int t = 0; t < topicCount; t++) {
                Uuid id = new Uuid(t + 1, run);
                topics.add(id);
                partitions.put(id, random.nextInt(20));
            }
            List<MemberSpec> members = new ArrayList<>();
            int memberCount = 1 + random.nextInt(6);
            for (int m = 0; m < memberCount; m++) {
                Set<Uuid> subscribed = new HashSet<>();
                topics.forEach(t -> {
                    if (random.nextBoolean()) {
                        subscribed.add(t);
                    }
                });
                members.add(new MemberSpec("m" + m, null, null, subscribed));
            }
            Map<String, Map<Uuid, Set<Integer>>> result = assignor.assign(new Spec(members, partitions, Map.of()));
            Map<Uuid, Integer> subscribedPartitions = new HashMap<>();
            partitions.forEach((t, n) -> {
                if (members.stream().anyMatch(m -> m.subscribedTopicIds().contains(t))) {
                    subscribedPartitions.put(t, n);
                }
            });
            assertEveryPartitionOnce(result, subscribedPartitions);
            for (MemberSpec m : members) {
                assertThat(m.subscribedTopicIds())
                        .as("seed %d", seed)
                        .containsAll(result.get(m.memberId()).keySet());
            }
        }
    }

    static void assertEveryPartitionOnce(Map<String, Map<Uuid, Set<Integer>>> a, Map<Uuid, Integer> partitions) {
        Map<Uuid, List<Integer>> seen = new HashMap<>();
        a.values()
                .forEach(m -> m.forEach((t, ps) ->
                        seen.computeIfAbsent(t, x -> new ArrayList<>()).addAll(ps)));
        partitions.forEach((t, n) -> {
            List<Integer> got = seen.getOrDefault(t, List.of());
            assertThat(got).hasSize(n);
            assertThat(new HashSet<>(got)).hasSize(n);
        });
    }
}

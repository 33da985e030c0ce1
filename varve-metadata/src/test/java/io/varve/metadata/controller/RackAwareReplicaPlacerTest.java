package io.varve.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RackAwareReplicaPlacerTest {

    private final RackAwareReplicaPlacer placer = new RackAwareReplicaPlacer();

    private static List<ReplicaPlacer.Broker> brokers(String... racks) {
        List<ReplicaPlacer.Broker> brokers = new ArrayList<>();
        for (int i = 0; i < racks.length; i++) {
            brokers.add(new ReplicaPlacer.Broker(i + 1, racks[i]));
        }
        return brokers;
    }

    @Test
    void withoutRacksLeadersRotateFromTheStartIndexAndReplicasAreDistinct() {
        List<List<Integer>> placement = placer.place(brokers(null, null, null, null), 6, 3, 1);

        assertThat(placement).extracting(replicas -> replicas.get(0)).containsExactly(2, 3, 4, 1, 2, 3);
        assertThat(placement)
                .allSatisfy(replicas -> assertThat(new HashSet<>(replicas)).hasSize(3));
    }

    @Test
    void replicasOfAPartitionGoToDistinctRacksWhenThereAreEnough() {
        Map<Integer, String> rackOf = Map.of(1, "a", 2, "a", 3, "b", 4, "b", 5, "c", 6, "c");
        List<ReplicaPlacer.Broker> brokers = new ArrayList<>();
        rackOf.forEach((id, rack) -> brokers.add(new ReplicaPlacer.Broker(id, rack)));
        brokers.sort((x, y) -> Integer.compare(x.id(), y.id()));

        List<List<Integer>> placement = placer.place(brokers, 12, 3, 0);

        assertThat(placement).allSatisfy(replicas -> assertThat(
                        replicas.stream().map(rackOf::get).distinct())
                .hasSize(3));
    }

    @Test
    void aSingleBrokerTakesReplicationFactorOne() {
        assertThat(placer.place(brokers((String) null), 3, 1, 7)).containsExactly(List.of(1), List.of(1), List.of(1));
    }

    @Test
    void moreReplicasThanBrokersIsRefused() {
        assertThatThrownBy(() -> placer.place(brokers("a"), 1, 2, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Over random rack layouts: replicas are distinct brokers, span min(rf, racks) racks, no rack holds
     * more than one replica more than another rack with unused brokers, and leaders spread evenly.
     */
    @Test
    void placementInvariantsHoldOverRandomRackLayouts() {
        for (int seed = 0; seed < 300; seed++) {
            Random random = new Random(seed);
            int brokerCount = 1 + random.nextInt(12);
            int rackCount = 1 + random.nextInt(5);
            List<ReplicaPlacer.Broker> brokers = new ArrayList<>();
            Map<Integer, String> rackOf = new HashMap<>();
            for (int id = 0; id < brokerCount; id++) {
                int rack = random.nextInt(rackCount + 1); // rackCount means "no rack"
                String name = rack == rackCount ? null : "r" + rack;
                brokers.add(new ReplicaPlacer.Broker(id * 3, name));
                rackOf.put(id * 3, name == null ? "<none>" : name);
            }
            int replicationFactor = 1 + random.nextInt(brokerCount);
            int laps = 1 + random.nextInt(4);
            int partitions = brokerCount * laps;
            int start = random.nextInt(1000);

            List<List<Integer>> placement = placer.place(brokers, partitions, replicationFactor, start);

            long racks = rackOf.values().stream().distinct().count();
            Map<Integer, Integer> leaders = new HashMap<>();
            for (List<Integer> replicas : placement) {
                String where = "seed " + seed + ", brokers " + brokers + ", replicas " + replicas;
                assertThat(replicas).as(where).hasSize(replicationFactor).doesNotHaveDuplicates();
                assertThat(replicas.stream().map(rackOf::get).distinct().count())
                        .as(where)
                        .isEqualTo(Math.min(replicationFactor, racks));
                assertRacksFilledInRounds(replicas, rackOf, where);
                leaders.merge(replicas.get(0), 1, Integer::sum);
            }
            assertThat(leaders.keySet()).as("seed %d", seed).hasSize(brokerCount);
            assertThat(leaders.values()).as("seed %d", seed).containsOnly(laps);
        }
    }

    /** A rack holds k+1 replicas only if every rack that still has an unused broker holds at least k. */
    private static void assertRacksFilledInRounds(List<Integer> replicas, Map<Integer, String> rackOf, String where) {
        Map<String, Integer> perRack = new HashMap<>();
        replicas.forEach(id -> perRack.merge(rackOf.get(id), 1, Integer::sum));
        Set<String> racksWithUnused = new HashSet<>();
        rackOf.forEach((id, rack) -> {
            if (!replicas.contains(id)) {
                racksWithUnused.add(rack);
            }
        });
        int most = perRack.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        for (String rack : racksWithUnused) {
            assertThat(perRack.getOrDefault(rack, 0)).as(where).isGreaterThanOrEqualTo(most - 1);
        }
    }

    @Test
    void theRingAlternatesRacks() {
        List<ReplicaPlacer.Broker> ring = RackAwareReplicaPlacer.rackAlternatingRing(brokers("a", "a", "a", "b", "c"));

        assertThat(ring).extracting(ReplicaPlacer.Broker::id).containsExactly(1, 4, 5, 2, 3);
        assertThat(IntStream.range(0, ring.size()).map(i -> ring.get(i).id())).hasSize(5);
    }
}

package io.varve.metadata.controller;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Places replicas on distinct brokers, and on distinct racks as far as the racks allow; brokers
 * without a rack count as one rack of their own.
 *
 * <p>The brokers are first laid out in a ring that alternates racks (first broker of each rack, then
 * the second of each …). Partition {@code p}'s leader is the ring's broker at {@code startIndex + p},
 * so leaders rotate over brokers and racks evenly. Its followers are taken walking the ring from the
 * leader, in rounds: each round takes at most one unused broker per rack not yet used in that round,
 * so a rack holds a second replica only once every rack holds one. The walk starts a little further
 * on for each lap of partitions around the ring, which spreads the followers of one leader over
 * different brokers.
 */
public final class RackAwareReplicaPlacer implements ReplicaPlacer {

    /** Rack key of brokers without a rack: not a legal rack name, so it cannot collide with one. */
    private static final String NO_RACK = "\0no-rack";

    @Override
    public List<List<Integer>> place(List<Broker> brokers, int numPartitions, int replicationFactor, int startIndex) {
        int count = brokers.size();
        if (replicationFactor <= 0 || replicationFactor > count) {
            throw new IllegalArgumentException(
                    "cannot place " + replicationFactor + " replicas on " + count + " brokers");
        }
        if (numPartitions <= 0) {
            throw new IllegalArgumentException("numPartitions must be > 0: " + numPartitions);
        }
        List<Broker> ring = rackAlternatingRing(brokers);
        List<List<Integer>> placement = new ArrayList<>(numPartitions);
        int first = Math.floorMod(startIndex, count);
        for (int partition = 0; partition < numPartitions; partition++) {
            int leaderIndex = (first + partition) % count;
            int lap = (first + partition) / count;
            int followerShift = count == 1 ? 0 : lap % (count - 1);
            placement.add(replicasFor(ring, leaderIndex, followerShift, replicationFactor));
        }
        return placement;
    }

    private static List<Integer> replicasFor(List<Broker> ring, int leaderIndex, int followerShift, int replicas) {
        int count = ring.size();
        List<Integer> chosen = new ArrayList<>(replicas);
        Set<Integer> used = new HashSet<>();
        Broker leader = ring.get(leaderIndex);
        chosen.add(leader.id());
        used.add(leader.id());
        Set<String> racksThisRound = new HashSet<>();
        racksThisRound.add(rackKey(leader));
        // The walk visits every other broker once per round; each round adds at least one broker while any is unused.
        while (chosen.size() < replicas) {
            int before = chosen.size();
            for (int step = 0; step < count - 1 && chosen.size() < replicas; step++) {
                Broker candidate = ring.get((leaderIndex + 1 + (followerShift + step) % (count - 1)) % count);
                if (!used.contains(candidate.id()) && racksThisRound.add(rackKey(candidate))) {
                    chosen.add(candidate.id());
                    used.add(candidate.id());
                }
            }
            if (chosen.size() == before) {
                racksThisRound.clear(); // every rack with unused brokers took one this round: start the next
            }
        }
        return List.copyOf(chosen);
    }

    private static String rackKey(Broker broker) {
        return broker.rack() == null ? NO_RACK : broker.rack();
    }

    /** Racks in name order, brokers of a rack in id order; then one broker of each rack in turn. */
    static List<Broker> rackAlternatingRing(List<Broker> brokers) {
        Map<String, List<Broker>> byRack = new TreeMap<>();
        brokers.stream().sorted((a, b) -> Integer.compare(a.id(), b.id())).forEach(broker -> byRack.computeIfAbsent(
                        rackKey(broker), r -> new ArrayList<>())
                .add(Objects.requireNonNull(broker, "broker")));
        List<Broker> ring = new ArrayList<>(brokers.size());
        for (int depth = 0; ring.size() < brokers.size(); depth++) {
            for (List<Broker> rack : byRack.values()) {
                if (depth < rack.size()) {
                    ring.add(rack.get(depth));
                }
            }
        }
        return ring;
    }
}

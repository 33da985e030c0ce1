package io.varve.metadata.controller;

import java.util.ArrayList;
import java.util.List;

/**
 * Partition {@code p}'s replicas are {@code replicationFactor} consecutive brokers (wrapping around)
 * starting at broker index {@code startIndex + p}: leaders spread evenly, replicas never repeat.
 * Not rack-aware yet.
 */
public final class RoundRobinReplicaPlacer implements ReplicaPlacer {

    @Override
    public List<List<Integer>> place(
            List<Integer> brokerIds, int numPartitions, int replicationFactor, int startIndex) {
        int brokers = brokerIds.size();
        if (replicationFactor <= 0 || replicationFactor > brokers) {
            throw new IllegalArgumentException(
                    "cannot place " + replicationFactor + " replicas on " + brokers + " brokers");
        }
        if (numPartitions <= 0) {
            throw new IllegalArgumentException("numPartitions must be > 0: " + numPartitions);
        }
        List<List<Integer>> placement = new ArrayList<>(numPartitions);
        int first = Math.floorMod(startIndex, brokers);
        for (int partition = 0; partition < numPartitions; partition++) {
            List<Integer> replicas = new ArrayList<>(replicationFactor);
            for (int replica = 0; replica < replicationFactor; replica++) {
                replicas.add(brokerIds.get((first + partition + replica) % brokers));
            }
            placement.add(List.copyOf(replicas));
        }
        return placement;
    }
}

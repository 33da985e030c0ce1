package io.varve.metadata.controller;

import java.util.List;

/** Chooses the replicas of new partitions. Pure: the same inputs give the same placement. */
public interface ReplicaPlacer {

    /**
     * @param brokerIds         registered brokers, ascending; at least {@code replicationFactor} of them
     * @param startIndex        a rotating cursor so that consecutive topics do not all lead on one broker
     * @return for each partition (index = partition id) its replicas, the first being the preferred leader
     */
    List<List<Integer>> place(List<Integer> brokerIds, int numPartitions, int replicationFactor, int startIndex);
}

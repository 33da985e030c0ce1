package io.varve.broker.raft;

import java.util.Set;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * What the controller listener tells admin clients about the quorum beyond the Raft messages themselves (ApiVersions
 * and DescribeCluster, KIP-919: how {@code kafka-metadata-quorum --bootstrap-controller} finds the active controller):
 * the cluster id, the leader this replica knows (-1 if none), the voter ids in effect, and where each listens.
 * {@code wallClockOffsetMs} turns the core's monotonic milliseconds into wall-clock ones for DescribeQuorum's
 * timestamps, which Kafka reports as wall-clock times.
 */
public record ControllerQuorumInfo(
        String clusterId,
        IntSupplier leaderId,
        Supplier<Set<Integer>> voterIds,
        RaftAddressBook addresses,
        long wallClockOffsetMs) {}

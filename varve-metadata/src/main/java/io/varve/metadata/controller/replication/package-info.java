/**
 * Partition leadership, ISR, ELR and replica-set decisions of the controller: moving leaders off brokers
 * that are fenced, shutting down or unregistered; electing leaders for offline partitions (clean from the
 * ISR, then from the eligible leader replicas of KIP-966, unclean only where
 * {@code unclean.leader.election.enable} allows); validating AlterPartition ISR changes against partition
 * and leader epochs; ElectLeaders and the automatic preferred-leader rebalance; partition reassignments.
 * Every next state of a partition comes from one {@code PartitionChangeBuilder}. Pure: images in,
 * {@link io.varve.metadata.record.PartitionChangeRecord}s and replies out. Does not decide broker lifecycle
 * (the {@code cluster} package does) nor place new partitions' replicas (the controller package does).
 */
package io.varve.metadata.controller.replication;

/**
 * The state of share-partitions (KIP-932). {@link io.varve.coordinator.share.SharePartition}: which records of a
 * partition a share group has delivered, to whom, how often, and which are done; the partition leader keeps one per
 * (group, partition) and persists its {@link io.varve.coordinator.share.SharePartition.Snapshot}. {@link
 * io.varve.coordinator.share.ShareStateShard}: the share coordinator's durable states of one {@code
 * __share_group_state} partition, with the state and leader epochs that fence stale writers. Pure: no I/O, no
 * threads, time passed in; nothing here reads logs or sockets.
 */
package io.varve.coordinator.share;

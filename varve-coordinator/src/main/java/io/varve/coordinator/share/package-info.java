/**
 * The state of one share-partition (KIP-932): which records of a partition a share group has delivered, to whom, how
 * often, and which are done. Pure: no I/O, no threads, time passed in. The partition leader keeps one per (group,
 * partition) and persists its {@link io.varve.coordinator.share.SharePartition.Snapshot}; it must not read logs or
 * sockets itself.
 */
package io.varve.coordinator.share;

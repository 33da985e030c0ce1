/**
 * Pure replication state of a partition: {@link io.varve.broker.replica.state.PartitionState} (roles, ISR, each
 * follower's progress, the high watermark) and {@link io.varve.broker.replica.state.EpochEndOffsets} (where a leader
 * epoch ended). No I/O, no threads, no clock: the replica layer holds them under a partition's lock and acts on what
 * they return.
 */
package io.varve.broker.replica.state;

/**
 * The leader-epoch lineage of one partition: which epoch started at which offset, kept in memory and
 * persisted to {@code leader-epoch-checkpoint} whenever it changes. Replication (truncation on
 * leader change, OffsetsForLeaderEpoch) will read it; the log only assigns and truncates.
 */
package io.varve.storage.epoch;

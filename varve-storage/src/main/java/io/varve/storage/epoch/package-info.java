/**
 * The leader-epoch lineage of one partition: which epoch started at which offset, kept in memory and
 * persisted to {@code leader-epoch-checkpoint} whenever it changes, and the one place that answers where an
 * epoch ends ({@link io.varve.storage.epoch.EpochEndOffset}, KIP-101/KIP-279): OffsetsForLeaderEpoch and the
 * diverging-epoch check of Fetch. The log assigns, truncates and clears it.
 */
package io.varve.storage.epoch;

/**
 * Varve's storage engine, public face: {@link io.varve.storage.LogManager} (log dirs, partition logs'
 * lifecycle, clean-shutdown marker), {@link io.varve.storage.PartitionLog} (append as leader, read whole
 * batches, offsets, flush) and their value types. Loading and recovery live in {@code LogLoader}.
 * Sub-packages: {@code batch} (v2 header format), {@code segment} (files and index), {@code producer}
 * (idempotence state), {@code epoch} (leader epochs), {@code checkpoint} (small metadata files),
 * {@code fs} (durable file primitives). Must not depend on the network layer or coordinators.
 */
package io.varve.storage;

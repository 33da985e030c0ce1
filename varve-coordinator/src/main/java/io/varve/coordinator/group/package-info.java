/**
 * The group coordinator of one {@code __consumer_offsets} partition ({@link io.varve.coordinator.group.GroupCoordinatorShard}):
 * classic groups ({@code classic}), KIP-848 consumer groups ({@code consumer}) with their server-side assignors
 * ({@code assignor}), committed offsets ({@code offset}) and the versioned records that persist all of it
 * ({@code record}). Every public method of the shard runs on one thread and returns futures that complete only
 * when the caller has written the records of that call ({@link io.varve.coordinator.runtime.Outbox}).
 * Must not depend on the broker, storage or the network.
 */
package io.varve.coordinator.group;

/**
 * Runs the group coordinator ({@code varve-coordinator}) inside the broker: {@link io.varve.broker.group.GroupCoordinatorRuntime}
 * is a {@link io.varve.coordinator.runtime.CoordinatorRuntime} of one shard per {@code __consumer_offsets} partition
 * this broker leads, on {@link io.varve.broker.group.CoordinatorThreads}, loaded and unloaded on the replica manager's
 * leadership events; {@link io.varve.broker.group.CoordinatorTopic} is the internal topic (key to partition, its
 * leader, creation through the controller with a capped replication factor, and the writer whose appends complete
 * once committed); the handlers translate the group APIs' wire messages to the coordinator's own types and back.
 * TxnOffsetCommit asks the transaction coordinator ({@link io.varve.broker.group.TransactionVerifier}) before writing
 * the offsets as a transactional batch; a marker committed to a {@code __consumer_offsets} partition is reported
 * ({@code GroupCoordinatorRuntime#onTransactionCompleted}), and a load replays markers from the log. Owns nothing
 * else: partition logs are reached through the replica manager only.
 */
package io.varve.broker.group;

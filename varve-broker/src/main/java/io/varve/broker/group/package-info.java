/**
 * Runs the group coordinator ({@code varve-coordinator}) inside the broker: {@link io.varve.broker.group.GroupCoordinatorRuntime}
 * gives each {@code __consumer_offsets} partition a shard on one of a few coordinator threads, loads it by
 * replaying the partition's log, writes what each event produced before answering, and fires timers; the
 * handlers translate the group APIs' wire messages to the coordinator's own types and back. TxnOffsetCommit asks
 * the transaction coordinator ({@link io.varve.broker.group.TransactionVerifier}) before writing the offsets as a
 * transactional batch; the transaction coordinator reports every marker it writes to a {@code __consumer_offsets}
 * partition ({@code GroupCoordinatorRuntime#onTransactionCompleted}), and a load replays markers from the log.
 * Owns nothing else: partition logs are reached through the replica manager only.
 */
package io.varve.broker.group;

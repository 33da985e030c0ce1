/**
 * The transaction coordinator as a pure state machine: {@link io.varve.coordinator.txn.TransactionCoordinatorShard}
 * owns the transactional ids of one {@code __transaction_state} partition, takes events (InitProducerId,
 * AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, marker completions, timer ticks) and leaves records to persist,
 * responses to release and transaction markers to write. Transaction version 1 semantics (KIP-890 off).
 */
package io.varve.coordinator.txn;

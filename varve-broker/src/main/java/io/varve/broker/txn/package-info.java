/**
 * The transaction coordinator's runtime: {@link io.varve.broker.txn.TransactionCoordinatorRuntime} runs one
 * {@link io.varve.coordinator.txn.TransactionCoordinatorShard} per {@code __transaction_state} partition this broker
 * leads on the generic {@link io.varve.coordinator.runtime.CoordinatorRuntime}; once a PREPARE_* record is committed
 * {@link io.varve.broker.txn.TxnMarkerSender} takes the transaction's markers to every partition's current leader
 * (this broker's own through {@link io.varve.broker.txn.TxnMarkerWriter}, the others' with WriteTxnMarkers over
 * {@link io.varve.broker.txn.NodeMarkerChannel}), retrying until all are written. {@link io.varve.broker.txn.TxnApis}
 * registers the transaction APIs, WriteTxnMarkers ({@link io.varve.broker.txn.WriteTxnMarkersHandler}) and
 * DescribeProducers ({@link io.varve.broker.txn.DescribeProducersHandler}, read from the partition logs' producer
 * state). {@link io.varve.broker.txn.TxnVerificationBatcher} asks the transaction coordinators, on behalf of the
 * partition leader and the group coordinator, whether a partition is in a producer's transaction or to add it
 * (KIP-890), batched per coordinator node.
 */
package io.varve.broker.txn;

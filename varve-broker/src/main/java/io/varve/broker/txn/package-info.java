/**
 * The transaction coordinator's runtime: {@link io.varve.broker.txn.TransactionCoordinatorRuntime} runs one
 * {@link io.varve.coordinator.txn.TransactionCoordinatorShard} per {@code __transaction_state} partition this broker
 * leads, persists its records, writes its transaction markers ({@link io.varve.broker.txn.TxnMarkerWriter}) and
 * ticks its timeouts; {@link io.varve.broker.txn.TxnApis} registers the transaction APIs and DescribeProducers
 * ({@link io.varve.broker.txn.DescribeProducersHandler}, read from the partition logs' producer state).
 */
package io.varve.broker.txn;

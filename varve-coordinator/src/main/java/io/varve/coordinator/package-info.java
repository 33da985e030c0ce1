/**
 * Coordinators as pure state machines: events in (requests and timer ticks on an injected clock), records to
 * persist and responses out. No threads, sockets or files live here; the broker runs each coordinator shard on
 * its own thread and writes its records to an internal topic. Sub-packages: {@code group} (the consumer group
 * coordinator), {@code txn} (the transaction coordinator) and {@code wire} (the only place that reads
 * kafka-clients' generated consumer-protocol classes).
 */
package io.varve.coordinator;

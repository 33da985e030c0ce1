/**
 * Idempotent-producer state of one partition: for each producer id its epoch and its last appended
 * batches, with Kafka's sequence and epoch rules. Pure: no I/O, no clock, not thread-safe (the log's
 * append lock serialises it). Rebuilt on load by replaying batch headers; producer-state snapshots
 * (a later issue) will plug in through {@link io.varve.storage.producer.ProducerStateManager#snapshot()}
 * and {@link io.varve.storage.producer.ProducerStateManager#restore}.
 */
package io.varve.storage.producer;

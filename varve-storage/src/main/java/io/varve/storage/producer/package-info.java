/**
 * Idempotent-producer state of one partition: for each producer id its epoch and its last appended
 * batches, with Kafka's sequence and epoch rules, expiry after {@code producer.id.expiration.ms}, and
 * the binary snapshot files ({@code <offset>.snapshot}) that let a start-up skip replaying the log.
 * The state machine is pure: no I/O, no clock, not thread-safe (the log's append lock serialises it);
 * only {@link io.varve.storage.producer.ProducerSnapshotFiles} touches disk.
 */
package io.varve.storage.producer;

/**
 * Idempotent and transactional producer state of one partition: for each producer id its epoch, its last
 * appended batches, the first offset of its ongoing transaction and the coordinator epoch of its last marker,
 * with Kafka's sequence, epoch and marker rules (the first unstable offset gives the last stable offset),
 * expiry after {@code producer.id.expiration.ms}, and
 * the binary snapshot files ({@code <offset>.snapshot}) that let a start-up skip replaying the log.
 * The state machine is pure: no I/O, no clock, not thread-safe (the log's append lock serialises it);
 * only {@link io.varve.storage.producer.ProducerSnapshotFiles} touches disk.
 */
package io.varve.storage.producer;

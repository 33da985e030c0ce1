/**
 * Kafka's v2 record-batch format, header only: field layout, parsing, CRC-32C checks, the in-place
 * patches the log makes (base offset, partition leader epoch, LogAppendTime) and validation of a produce
 * payload. Records inside a batch are never decoded here: compressed batches stay as the producer sent
 * them. Owns no I/O; callers hand in {@link java.nio.ByteBuffer}s.
 */
package io.varve.storage.batch;

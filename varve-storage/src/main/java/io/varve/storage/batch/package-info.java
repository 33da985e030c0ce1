/**
 * Kafka's v2 record-batch format, header only: field layout, parsing, CRC-32C checks, the in-place
 * patches the log makes (base offset, partition leader epoch, LogAppendTime), validation of a produce
 * payload, and validation of the batches a follower copies from its leader (offsets kept, gaps allowed, a trailing
 * partial batch left out). Records inside a batch are never decoded here: compressed batches stay as the producer sent
 * them. Owns no I/O; callers hand in {@link java.nio.ByteBuffer}s.
 */
package io.varve.storage.batch;

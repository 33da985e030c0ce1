/**
 * The one seam where records inside v2 batches are decoded and re-encoded, with kafka-clients' record
 * classes ({@code org.apache.kafka.common.record.*}); no other package of varve-storage may import them,
 * so a kafka-clients upgrade (4.4 moves them to {@code record.internal}) touches only this package.
 * Owns: the key check a compacted topic makes at append ({@link io.varve.storage.records.RecordKeys}),
 * decoding a transaction marker's control record ({@link io.varve.storage.records.TxnMarker}),
 * walking the keys of stored batches for the cleaner's offset map, and rewriting batches keeping only
 * the records a cleaner's rules retain ({@link io.varve.storage.records.CompactionFilter}) with batch
 * metadata, compression codec, last offset and Kafka's per-batch delete horizon preserved. Knows nothing
 * of segments, files or which records are "latest": callers pass the rules in.
 */
package io.varve.storage.records;

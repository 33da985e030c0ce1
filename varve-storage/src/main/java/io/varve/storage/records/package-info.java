/**
 * The one seam where records inside v2 batches are decoded and encoded, with kafka-clients' record classes
 * ({@code org.apache.kafka.common.record.internal.*} since 4.4); no other package of Varve's main code may
 * import them except the broker's wire seam ({@code io.varve.broker.protocol}, for the record sets of the
 * generated messages), so a kafka-clients upgrade touches these two packages only.
 * Owns: the key check a compacted topic makes at append ({@link io.varve.storage.records.RecordKeys}),
 * transaction markers written and decoded ({@link io.varve.storage.records.TxnMarker}), the coordinators' keyed
 * records in their internal topics ({@link io.varve.storage.records.KeyValueBatches}), record timestamps for
 * time lookups ({@link io.varve.storage.records.RecordTimestamps}), walking the keys of stored batches for the
 * cleaner's offset map, and rewriting batches keeping only the records a cleaner's rules retain
 * ({@link io.varve.storage.records.CompactionFilter}) with batch metadata, compression codec, last offset and
 * Kafka's per-batch delete horizon preserved. The Raft metadata log's entries as the batches a KRaft Fetch
 * carries ({@link io.varve.storage.records.RaftBatches}). Knows nothing of segments, files or which records are "latest":
 * callers pass the rules in.
 */
package io.varve.storage.records;

/**
 * One log segment on disk: {@code <20-digit base offset>.log} holding raw v2 batches back to back, its
 * sparse offset index ({@code .index}: int32 relative offset, int32 file position of a batch) and its
 * sparse time index ({@code .timeindex}: int64 max timestamp so far, int32 relative offset of the batch
 * that reached it), both one entry per {@code index.interval.bytes} appended, and once it holds an ABORT
 * marker its aborted-transaction index ({@code .txnindex}, Kafka's entry shape: producer id, first offset,
 * last offset, last stable offset after the abort; {@link io.varve.storage.segment.TransactionIndex}). Owns appending whole
 * batches, locating and reading whole batches (for copies and zero-copy slices), finding batches by
 * time, scanning batch headers, rebuilding indexes and truncating a torn tail on recovery, the state
 * suffixes of its files ({@code .deleted}, {@code .cleaned}) and the crash-safe segment swap protocol
 * ({@link io.varve.storage.segment.SegmentSwap}). A segment that is no longer active is never written
 * again (tiered storage uploads it as is). Knows nothing about producers, epochs or which segment is
 * active: that is the partition log's job.
 */
package io.varve.storage.segment;

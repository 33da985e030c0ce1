/**
 * One log segment on disk: {@code <20-digit base offset>.log} holding raw v2 batches back to back,
 * and {@code .index}, a sparse offset index (int32 offset relative to the base offset of a batch,
 * int32 file position of that batch), one entry per {@code index.interval.bytes} appended.
 * Owns appending whole batches, positional reads of whole batches, scanning batch headers, and
 * rebuilding the index / truncating a torn tail on recovery. A segment that is no longer active is
 * never written again (tiered storage uploads it as is). Knows nothing about producers, epochs or
 * which segment is active: that is the partition log's job.
 */
package io.varve.storage.segment;

/**
 * Transparent reads of tiered data: serves fetches and time lookups below a partition's local log start offset from
 * remote segments, as whole record batches.
 *
 * <p>{@link io.varve.tiered.read.RemoteReadService} is the broker's entry point: a bounded pool of reader threads
 * ({@code remote.log.reader.threads}, {@code remote.log.reader.max.pending.tasks}) so that a slow or unreachable
 * store never holds a request thread, and one alarm log line per store outage. {@link
 * io.varve.tiered.read.RemoteLogReader} does the work: segment for the offset (leader-epoch aware) from a {@link
 * io.varve.tiered.read.RemoteSegmentSource}, position from the segment's offset index ({@link
 * io.varve.tiered.read.RemoteIndexCache}: index objects cached as files on local disk and opened with the storage
 * engine's own index classes), bytes from a {@link io.varve.tiered.read.SegmentBytes}: fixed-size chunks in memory
 * ({@link io.varve.tiered.read.ChunkCache}, for stores reached over the network) or, when the backend keeps objects as
 * local files, ranges of those files sent with sendfile ({@link io.varve.tiered.read.FileSegmentBytes}); read-ahead of
 * several chunks for sequential consumers ({@link io.varve.tiered.read.ReadAheadPlan}).
 *
 * <p>Owns no remote state: what is copied comes from the remote log metadata, and the write side (upload,
 * retention) lives in the remote log manager. Must not depend on the broker.
 */
package io.varve.tiered.read;

/**
 * Varve's storage engine, public face: {@link io.varve.storage.LogManager} (log dirs, partition logs'
 * lifecycle, clean-shutdown marker, offset checkpoints (the high watermarks' too), background retention / flush /
 * expiry on one scheduler, the log cleaner's threads), {@link io.varve.storage.PartitionLog} (append as leader or
 * as follower, truncation, where a leader epoch ends, the high watermark, read
 * whole batches as copies or zero-copy {@link io.varve.storage.LogSlice}s, lookups by time, DeleteRecords,
 * retention, the compaction seam {@code replaceSegments}; transactions: coordinator markers through
 * {@link io.varve.storage.AppendOrigin#COORDINATOR}, the last stable offset, the aborted transactions of a
 * range for read_committed readers) and their value types ({@link io.varve.storage.LogConfig},
 * {@link io.varve.storage.LogManagerConfig}). Inside: {@code LogLoader} (loading and recovery),
 * {@code FollowerWrites} (follower appends and truncations, in crash-safe order), {@code SegmentRoller} (when and
 * how the active segment rolls), {@code ProducerStateReplay} (producer state from stored batches, for loading,
 * truncation and follower appends alike),
 * {@code LogSegments} (the segment set: roll, retire, swap, delayed deletion), {@code LogReader} (lock-free
 * reads), {@code LogRetention} (which head segments go), {@code LogFlusher} (flush policy and recovery
 * point), {@code ProducerStateStore} (producer state and its snapshots), {@code LogDirCheckpoints},
 * {@code DeferredLogs} (logs a clean start opens on first use or in the background), {@code LogDirs} (dir locks
 * and partition directory listing), {@code LogIoPool} (the I/O threads), {@code ReplicaDirMover} (a replica moved
 * to another log dir while online: a future log copied and swapped in behind {@link io.varve.storage.LogSwapGate}),
 * {@code ReplicaMove} (one move's copy) and {@code ReplicaMoveRecovery} (what a crash mid-move leaves, decided at
 * start-up).
 * Sub-packages: {@code batch} (v2 header format, produce validation), {@code segment} (files and
 * indexes), {@code producer} (idempotence state and snapshot files), {@code epoch} (leader epochs),
 * {@code checkpoint} (small metadata files), {@code fs} (durable file primitives), {@code cleaner} (the
 * log cleaner: compaction), {@code records} (the only package that decodes records, with kafka-clients'
 * record classes: key checks and the cleaner's rewrite).
 * Must not depend on the network layer or coordinators.
 */
package io.varve.storage;

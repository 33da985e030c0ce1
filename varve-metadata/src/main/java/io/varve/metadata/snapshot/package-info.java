/**
 * Metadata snapshots (KIP-630): an image written as the records that rebuild it ({@link
 * io.varve.metadata.snapshot.MetadataSnapshotFormat}), and when to write one ({@link
 * io.varve.metadata.snapshot.SnapshotPolicy}, pure; {@link io.varve.metadata.snapshot.SnapshotGenerator}, which
 * serializes off the Raft thread and hands the bytes to the Raft log). Owns the snapshot's bytes, not where they
 * are stored (the Raft layer's snapshot store) nor how a loaded snapshot reaches publishers (the loader).
 */
package io.varve.metadata.snapshot;

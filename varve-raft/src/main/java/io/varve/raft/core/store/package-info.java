/**
 * The core's seams on disk: {@link io.varve.raft.core.store.FileRaftLog} (segment files of CRC-checked
 * entries and a {@code log-start} file), {@link io.varve.raft.core.store.FileQuorumStateStore} (the
 * {@code quorum-state} file) and {@link io.varve.raft.core.store.FileSnapshotStore} (KIP-630
 * {@code <offset>-<epoch>.checkpoint} files). Each class comment states its file format and what a crash
 * at any point leaves; torn tails are dropped, anything else wrong fails loudly ({@link
 * io.varve.raft.core.store.CorruptStoreException}).
 *
 * <p>Owns: file formats, fsync ordering, recovery on open. Must not touch: Raft logic (the core decides
 * what to write and when to flush), threads, the network, the broker, kafka-clients.
 */
package io.varve.raft.core.store;

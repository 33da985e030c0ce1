/**
 * The Raft log on disk: {@link io.varve.raft.log.RaftLog} (the seam), {@link io.varve.raft.log.FileRaftLog}
 * (one segment file plus recovery) and {@link io.varve.raft.log.BatchFrameCodec} (the frame format,
 * documented there). Owns bytes and fsync; knows nothing of epochs' meaning, leaders or listeners.
 */
package io.varve.raft.log;

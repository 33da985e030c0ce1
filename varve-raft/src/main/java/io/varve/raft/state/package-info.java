/**
 * Who the local node is in the quorum: {@link io.varve.raft.state.QuorumState} (the transitions),
 * one class per role ({@link io.varve.raft.state.UnattachedState}, {@link io.varve.raft.state.CandidateState},
 * {@link io.varve.raft.state.LeaderState}) and the durable {@link io.varve.raft.state.ElectionState}
 * behind {@link io.varve.raft.state.QuorumStateStore}. Pure logic plus one small file; no threads, no log I/O.
 */
package io.varve.raft.state;

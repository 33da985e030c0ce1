/**
 * The multi-voter Raft core, modelled on KRaft: a pure state machine ({@link io.varve.raft.core.RaftCore})
 * that takes messages and time and returns messages to send and entries that committed, writing the log,
 * the election record and snapshots through the seams of {@code core.runtime}.
 *
 * <p>Owns: the roles (one class each: {@code UnattachedState}, {@code ProspectiveState} for KIP-996
 * pre-vote, {@code CandidateState}, {@code LeaderState}, {@code FollowerState}, {@code ResignedState}),
 * their transitions ({@code QuorumState}, with the table in its comment), one handler per message kind
 * ({@code VoteHandler}, {@code BeginQuorumEpochHandler}, {@code EndQuorumEpochHandler},
 * {@code FetchRequestHandler} and {@code FetchResponseHandler}, {@code FetchSnapshotHandler},
 * {@code DescribeQuorumHandler}, {@code VoterChangeHandler}), the voter set over the log
 * ({@code VoterHistory}, KIP-853), the high watermark ({@code CommitTracker}) and the requests in flight
 * ({@code PendingRequests}).
 *
 * <p>Must not touch: threads, clocks, sockets, files, the broker, Netty or kafka-clients. It sits beside
 * the single-voter {@code io.varve.raft} node the broker uses today and is not wired into it yet.
 */
package io.varve.raft.core;

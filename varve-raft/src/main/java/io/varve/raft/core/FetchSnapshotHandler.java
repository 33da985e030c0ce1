package io.varve.raft.core;

import io.varve.raft.core.message.FetchSnapshotRequest;
import io.varve.raft.core.message.FetchSnapshotResponse;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.SnapshotId;
import java.util.Optional;

/**
 * FetchSnapshot (KIP-630), both sides: the leader serves its latest snapshot in chunks; a follower
 * whose fetch offset fell below the leader's log start pulls it, installs it (log restarts at its end,
 * the state machine reloads it) and then goes on fetching entries.
 */
final class FetchSnapshotHandler {
    private final CoreContext ctx;

    FetchSnapshotHandler(CoreContext ctx) {
        this.ctx = ctx;
    }

    void handleRequest(InboundMessage in, FetchSnapshotRequest request, long nowMs) {
        RaftError error = ctx.checkCluster(request);
        if (error == RaftError.NONE && request.currentLeaderEpoch() < ctx.epoch()) {
            error = RaftError.FENCED_LEADER_EPOCH;
        } else if (error == RaftError.NONE && request.currentLeaderEpoch() > ctx.epoch()) {
            error = RaftError.UNKNOWN_LEADER_EPOCH;
        } else if (error == RaftError.NONE && !(ctx.state() instanceof LeaderState)) {
            error = RaftError.NOT_LEADER_OR_FOLLOWER;
        }
        Optional<SnapshotId> latest = ctx.snapshots.latest();
        if (error == RaftError.NONE && (latest.isEmpty() || !latest.get().equals(request.snapshotId()))) {
            error = RaftError.SNAPSHOT_NOT_FOUND;
        }
        long sizeBytes = error == RaftError.NONE ? ctx.snapshots.sizeBytes(request.snapshotId()) : -1;
        if (error == RaftError.NONE && (request.position() < 0 || request.position() > sizeBytes)) {
            error = RaftError.POSITION_OUT_OF_RANGE;
        }
        if (error == RaftError.NONE && request.maxBytes() <= 0) {
            error = RaftError.INVALID_REQUEST;
        }
        EpochState state = ctx.state();
        if (error != RaftError.NONE) {
            ctx.respond(in, FetchSnapshotResponse.error(error, state.leaderId(), state.epoch()));
            return;
        }
        ((LeaderState) state).recordContact(in.sourceId(), ctx.voters(), nowMs);
        int maxBytes = Math.min(request.maxBytes(), ctx.config.snapshotChunkBytes());
        byte[] chunk = ctx.snapshots.read(request.snapshotId(), request.position(), maxBytes);
        ctx.respond(
                in,
                new FetchSnapshotResponse(
                        RaftError.NONE,
                        ctx.nodeId(),
                        state.epoch(),
                        request.snapshotId(),
                        sizeBytes,
                        request.position(),
                        chunk));
    }

    void handleResponse(InboundMessage in, FetchSnapshotResponse response, long nowMs) {
        if (!(ctx.state() instanceof FollowerState follower)
                || follower.leaderId() != in.sourceId()
                || response.leaderEpoch() != follower.epoch()
                || follower.download == null) {
            return;
        }
        follower.nextFetchAtMs = nowMs;
        if (response.error() != RaftError.NONE || !follower.download.id.equals(response.snapshotId())) {
            // The leader moved to a newer snapshot, or cannot serve: fetch again to learn what to pull.
            follower.download = null;
            follower.nextFetchAtMs = nowMs + ctx.config.retryBackoffMs();
            return;
        }
        follower.leaderContact(nowMs);
        SnapshotDownload download = follower.download;
        if (download.accept(response.size(), response.position(), response.bytes())) {
            follower.download = null;
            byte[] data = download.data();
            ctx.snapshots.write(download.id, data);
            ctx.log.resetTo(download.id, SnapshotFormat.voters(data));
            ctx.commits.snapshotInstalled(download.id);
        }
    }
}

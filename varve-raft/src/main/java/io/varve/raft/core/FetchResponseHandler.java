package io.varve.raft.core;

import static io.varve.raft.core.message.RaftMessage.NO_ID;

import io.varve.raft.core.message.FetchRequest;
import io.varve.raft.core.message.FetchResponse;
import io.varve.raft.core.message.FetchSnapshotRequest;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OffsetAndEpoch;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.RaftMessage;
import java.util.List;
import java.util.Optional;

/**
 * The fetcher's side of Fetch, for followers and observers: send the next fetch (or snapshot chunk
 * request), then apply the answer: truncate to a diverging epoch, start pulling a snapshot, or append
 * entries (flushed before the next fetch reports them) and move the high watermark.
 */
final class FetchResponseHandler {
    private final CoreContext ctx;

    FetchResponseHandler(CoreContext ctx) {
        this.ctx = ctx;
    }

    /** Sends the next fetch to the leader when none is in flight and no backoff holds it. */
    void maybeFetch(FollowerState follower, long nowMs) {
        int leaderId = follower.leaderId();
        if (nowMs < follower.nextFetchAtMs
                || ctx.pending.hasPending(leaderId, FetchRequest.class)
                || ctx.pending.hasPending(leaderId, FetchSnapshotRequest.class)) {
            return;
        }
        if (follower.download != null) {
            ctx.send(
                    leaderId,
                    new FetchSnapshotRequest(
                            ctx.config.clusterId(),
                            ctx.nodeId(),
                            follower.epoch(),
                            follower.download.id,
                            follower.download.position(),
                            ctx.config.snapshotChunkBytes()),
                    nowMs);
        } else {
            sendFetch(leaderId, follower.epoch(), nowMs);
        }
    }

    /**
     * An observer that knows no leader asks a random bootstrap server when it has some (a dynamic quorum:
     * Kafka's {@code controller.quorum.bootstrap.servers}), else a random voter; any answer names the leader if it
     * knows, and the observer follows it from then on.
     */
    void discoverLeader(UnattachedState unattached, long nowMs) {
        int destination;
        int bootstrapServers = ctx.config.bootstrapServers();
        if (bootstrapServers > 0) {
            destination = RaftMessage.bootstrapServerId(ctx.random.nextInt(bootstrapServers));
        } else {
            List<Integer> voters =
                    ctx.voters().ids().stream().filter(id -> id != ctx.nodeId()).toList();
            if (voters.isEmpty()) {
                unattached.discoveryDeadlineMs = nowMs + ctx.config.requestTimeoutMs();
                return; // nobody to ask: a replica of a dynamic quorum that knows no voter and no bootstrap server
            }
            destination = voters.get(ctx.random.nextInt(voters.size()));
        }
        if (!ctx.pending.hasPending(destination, FetchRequest.class)) {
            sendFetch(destination, unattached.epoch(), nowMs);
        }
        unattached.discoveryDeadlineMs = nowMs + ctx.config.requestTimeoutMs();
    }

    private void sendFetch(int destinationId, int epoch, long nowMs) {
        ctx.send(
                destinationId,
                new FetchRequest(
                        ctx.config.clusterId(),
                        ctx.nodeId(),
                        epoch,
                        ctx.log.endOffset(),
                        ctx.log.lastEpoch(),
                        ctx.config.maxFetchEntries(),
                        ctx.config.fetchMaxWaitMs(),
                        ctx.config.localVoter().directoryId()),
                nowMs);
    }

    void handleResponse(InboundMessage in, FetchResponse response, long nowMs) {
        if (!(ctx.state() instanceof FollowerState follower)
                || follower.leaderId() != in.sourceId()
                || response.leaderEpoch() != follower.epoch()) {
            return;
        }
        if (response.error() == RaftError.FENCED_LEADER_EPOCH) {
            // Our fetch carried an older epoch; the answer named this leader and epoch, now adopted.
            follower.nextFetchAtMs = nowMs;
            return;
        }
        if (response.error() == RaftError.NOT_LEADER_OR_FOLLOWER && response.leaderId() < 0) {
            // The replica we follow says it does not lead this epoch (it resigned, or restarted): we only
            // heard of it, so forget it rather than keep fetching from it until the fetch timeout.
            ctx.becomeUnattached(follower.epoch(), NO_ID, nowMs + ctx.quorum.randomElectionTimeoutMs(), nowMs);
            return;
        }
        if (response.error() != RaftError.NONE) {
            follower.nextFetchAtMs = nowMs + ctx.config.retryBackoffMs();
            return;
        }
        follower.leaderContact(nowMs);
        follower.nextFetchAtMs = nowMs;
        if (response.divergingEpoch().isPresent()) {
            truncateToDivergence(response.divergingEpoch().get());
        } else if (response.snapshotId().isPresent()) {
            follower.download = new SnapshotDownload(response.snapshotId().get());
        } else {
            append(response.records());
            ctx.commits.advanceTo(Math.min(response.highWatermark(), ctx.log.endOffset()));
        }
        maybeFetch(follower, nowMs);
    }

    /**
     * The leader's log ends the diverging epoch at {@code diverging.offset()}; ours may end it earlier.
     * Truncate to the smaller end; the next fetch checks again. Never below the high watermark: a
     * committed entry is on every leader, so diverging below it means a broken invariant, not a fault.
     */
    private void truncateToDivergence(OffsetAndEpoch diverging) {
        Optional<OffsetAndEpoch> local = ctx.log.endOffsetForEpoch(diverging.epoch());
        if (local.isEmpty()) {
            throw new IllegalStateException("node " + ctx.nodeId() + ": the leader diverges at " + diverging
                    + ", below this log's snapshot at " + ctx.log.startOffset());
        }
        long target = Math.min(Math.min(local.get().offset(), diverging.offset()), ctx.log.endOffset());
        long highWatermark = ctx.commits.highWatermark();
        if (target < highWatermark) {
            throw new IllegalStateException("node " + ctx.nodeId() + " would truncate to " + target
                    + ", below its high watermark " + highWatermark + " (diverging " + diverging + ")");
        }
        ctx.log.truncateTo(target);
    }

    private void append(List<LogEntry> records) {
        if (records.isEmpty()) {
            return;
        }
        long expected = ctx.log.endOffset();
        if (records.get(0).offset() != expected) {
            throw new IllegalStateException(
                    "fetched entries start at " + records.get(0).offset() + ", log ends at " + expected);
        }
        ctx.log.append(records);
        // Durable before the next fetch tells the leader we hold them: that report counts for the HW.
        ctx.log.flush();
    }
}

package io.varve.raft.core;

import io.varve.raft.core.LeaderState.ParkedFetch;
import io.varve.raft.core.message.FetchRequest;
import io.varve.raft.core.message.FetchResponse;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OffsetAndEpoch;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.SnapshotId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * The leader's side of Fetch (KIP-595 pull replication): validate the fetcher's position against the
 * log (diverging epoch, or a snapshot when it is below the log start), record the progress of voters,
 * move the high watermark, answer with entries, or park a caught-up fetch until there is news.
 */
final class FetchRequestHandler {
    private final CoreContext ctx;

    FetchRequestHandler(CoreContext ctx) {
        this.ctx = ctx;
    }

    void handleRequest(InboundMessage in, FetchRequest request, long nowMs) {
        RaftError error = validate(in, request);
        if (error != RaftError.NONE) {
            EpochState state = ctx.state();
            ctx.respond(in, FetchResponse.error(error, state.leaderId(), state.epoch()));
            return;
        }
        LeaderState leader = (LeaderState) ctx.state();
        long fetchOffset = request.fetchOffset();
        Optional<OffsetAndEpoch> epochEnd = fetchOffset < ctx.log.startOffset()
                ? Optional.empty()
                : ctx.log.endOffsetForEpoch(request.lastFetchedEpoch());
        if (epochEnd.isEmpty()) {
            leader.recordContact(request.replicaId(), ctx.voters(), nowMs);
            respond(in, leader, Optional.empty(), Optional.of(latestSnapshot()), List.of());
            return;
        }
        OffsetAndEpoch end = epochEnd.get();
        if (end.epoch() != request.lastFetchedEpoch() || end.offset() < fetchOffset) {
            leader.recordContact(request.replicaId(), ctx.voters(), nowMs);
            respond(in, leader, Optional.of(end), Optional.empty(), List.of());
            return;
        }
        // Valid: the fetcher holds exactly our entries below fetchOffset.
        leader.recordFetch(request.replicaId(), fetchOffset, ctx.log.endOffset(), ctx.voters(), nowMs);
        leader.recordDirectory(request.replicaId(), request.replicaDirectoryId(), ctx.voters());
        updateHighWatermark(leader);
        leader.parked.remove(request.replicaId());
        boolean nothingNew = fetchOffset >= ctx.log.endOffset()
                && leader.highWatermarkSent(request.replicaId()) == ctx.commits.highWatermark();
        boolean room = leader.parked.size() < ctx.voters().size() + LeaderState.MAX_OBSERVERS;
        if (nothingNew && request.maxWaitMs() > 0 && room) {
            leader.parked.put(
                    request.replicaId(),
                    new ParkedFetch(in.sourceId(), in.correlationId(), request, nowMs + request.maxWaitMs()));
            return;
        }
        answerWithEntries(in, leader, request);
    }

    private RaftError validate(InboundMessage in, FetchRequest request) {
        RaftError error = ctx.checkCluster(request);
        if (error != RaftError.NONE) {
            return error;
        }
        if (request.fetchOffset() < 0
                || request.lastFetchedEpoch() < 0
                || request.maxEntries() <= 0
                || request.replicaId() != in.sourceId()
                || request.replicaId() == ctx.nodeId()) {
            return RaftError.INVALID_REQUEST;
        }
        if (request.currentLeaderEpoch() < ctx.epoch()) {
            return RaftError.FENCED_LEADER_EPOCH;
        }
        if (request.currentLeaderEpoch() > ctx.epoch()) {
            return RaftError.UNKNOWN_LEADER_EPOCH;
        }
        return ctx.state() instanceof LeaderState ? RaftError.NONE : RaftError.NOT_LEADER_OR_FOLLOWER;
    }

    private SnapshotId latestSnapshot() {
        SnapshotId id = ctx.snapshots
                .latest()
                .orElseThrow(() ->
                        new IllegalStateException("log starts at " + ctx.log.startOffset() + " without a snapshot"));
        if (id.endOffset() != ctx.log.startOffset()) {
            throw new IllegalStateException(
                    "latest snapshot " + id + " does not end at the log start " + ctx.log.startOffset());
        }
        return id;
    }

    /**
     * The high watermark is the largest offset a majority of voters hold, once that includes an entry
     * of this epoch (its LeaderChange): entries of older epochs commit only through it (Raft §5.4.2).
     */
    void updateHighWatermark(LeaderState leader) {
        long replicated = leader.majorityReplicatedOffset(ctx.voters(), ctx.log.flushedEndOffset());
        if (replicated > leader.epochStartOffset) {
            ctx.commits.advanceTo(replicated);
        }
    }

    /** Answers parked fetches that have news (entries, a moved high watermark) or waited long enough. */
    void completeParked(LeaderState leader, long nowMs) {
        if (leader.parked.isEmpty()) {
            return;
        }
        List<ParkedFetch> ready = new ArrayList<>();
        Iterator<ParkedFetch> it = leader.parked.values().iterator();
        while (it.hasNext()) {
            ParkedFetch parked = it.next();
            int replicaId = parked.request().replicaId();
            boolean news = ctx.log.endOffset() > parked.request().fetchOffset()
                    || leader.highWatermarkSent(replicaId) != ctx.commits.highWatermark();
            if (news || nowMs >= parked.deadlineMs()) {
                ready.add(parked);
                it.remove();
            }
        }
        ready.sort((a, b) -> Integer.compare(a.sourceId(), b.sourceId()));
        for (ParkedFetch parked : ready) {
            answerWithEntries(
                    new InboundMessage(parked.sourceId(), parked.correlationId(), parked.request()),
                    leader,
                    parked.request());
        }
    }

    private void answerWithEntries(InboundMessage in, LeaderState leader, FetchRequest request) {
        int max = Math.min(request.maxEntries(), ctx.config.maxFetchEntries());
        List<LogEntry> entries = ctx.log.read(request.fetchOffset(), ctx.log.endOffset(), max);
        // Only an answer with entries (or none) carries a high watermark the fetcher applies.
        leader.sentHighWatermark(in.sourceId(), ctx.commits.highWatermark(), ctx.voters());
        respond(in, leader, Optional.empty(), Optional.empty(), entries);
    }

    private void respond(
            InboundMessage in,
            LeaderState leader,
            Optional<OffsetAndEpoch> diverging,
            Optional<SnapshotId> snapshot,
            List<LogEntry> entries) {
        long highWatermark = ctx.commits.highWatermark();
        ctx.respond(
                in,
                new FetchResponse(
                        RaftError.NONE,
                        ctx.nodeId(),
                        leader.epoch(),
                        highWatermark,
                        ctx.log.startOffset(),
                        diverging,
                        snapshot,
                        entries));
    }
}

package io.varve.coordinator.group.offset;

import io.varve.coordinator.group.Group;
import io.varve.coordinator.group.ShardContext;
import io.varve.coordinator.group.offset.OffsetApi.CommitPartition;
import io.varve.coordinator.group.offset.OffsetApi.CommitRequest;
import io.varve.coordinator.group.offset.OffsetApi.DeleteResponse;
import io.varve.coordinator.group.offset.OffsetApi.FetchRequest;
import io.varve.coordinator.group.offset.OffsetApi.FetchResponse;
import io.varve.coordinator.group.offset.OffsetApi.FetchedOffset;
import io.varve.coordinator.group.offset.OffsetApi.PartitionResult;
import io.varve.coordinator.group.offset.OffsetApi.TxnCommitRequest;
import io.varve.coordinator.group.record.GroupRecordSerde;
import io.varve.coordinator.group.record.OffsetValue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** OffsetCommit, OffsetFetch, OffsetDelete and offset expiry over the shard's {@link OffsetStore}. */
public final class OffsetManager {
    private static final Logger log = LoggerFactory.getLogger(OffsetManager.class);

    /** What a group's protocol decides about its offsets. */
    public interface GroupRules {
        /** The group a commit lands in; creates a simple group for a member-less commit. Null: no such group. */
        Group groupForCommit(CommitRequest request);

        Errors validateCommit(Group group, CommitRequest request);

        /** The group a TxnOffsetCommit lands in: as {@link #groupForCommit}, a simple group for generation -1. */
        Group groupForTxnCommit(TxnCommitRequest request);

        /** KIP-447's checks of a TxnOffsetCommit: the member and generation (or member epoch) of the consumer. */
        Errors validateTxnCommit(Group group, TxnCommitRequest request);

        Errors validateFetch(Group group, String memberId, int memberEpoch);

        /** Topics the group's members subscribe to: their offsets cannot be deleted. Null: unknown, so all. */
        Set<String> subscribedTopics(Group group);

        /** Topics whose offsets do not expire while the group is as it is. Null: none of its offsets expire. */
        Set<String> protectedTopics(Group group);

        /** For OffsetDelete: NONE, or the group-level error (a non-empty group that is not a consumer group). */
        Errors validateOffsetDelete(Group group);

        /** The time offsets of this group expire from instead of their commit time, or -1. */
        long expirationBaseMs(Group group);
    }

    private final ShardContext ctx;
    private final GroupRules rules;

    public OffsetManager(ShardContext ctx, GroupRules rules) {
        this.ctx = ctx;
        this.rules = rules;
    }

    public CompletableFuture<List<PartitionResult>> commit(CommitRequest r) {
        Group group = rules.groupForCommit(r);
        Errors groupError;
        if (group == null) {
            groupError = r.groupIdNotFoundCode() ? Errors.GROUP_ID_NOT_FOUND : Errors.ILLEGAL_GENERATION;
        } else {
            groupError = rules.validateCommit(group, r);
        }
        long now = ctx.nowMs();
        long expireTimestampMs = r.retentionTimeMs() >= 0 ? now + r.retentionTimeMs() : -1;
        return ctx.outbox.respond(store(r.partitions(), groupError, p -> {
            OffsetValue value = valueOf(p, now, expireTimestampMs);
            ctx.offsets.put(r.groupId(), p.partition(), value);
            ctx.outbox.append(GroupRecordSerde.offset(r.groupId(), p.partition(), value));
        }));
    }

    /**
     * TxnOffsetCommit: the offsets are written as records of the producer's transaction and staged as pending; they
     * become committed when the transaction's COMMIT marker reaches this partition ({@link #completeTransaction}),
     * and are dropped on ABORT.
     */
    public CompletableFuture<List<PartitionResult>> commitTransactional(TxnCommitRequest r) {
        Group group = rules.groupForTxnCommit(r);
        Errors groupError;
        if (group == null) {
            groupError = r.consumerProtocolErrors() ? Errors.GROUP_ID_NOT_FOUND : Errors.ILLEGAL_GENERATION;
        } else {
            groupError = rules.validateTxnCommit(group, r);
        }
        long now = ctx.nowMs();
        return ctx.outbox.respond(store(r.partitions(), groupError, p -> {
            OffsetValue value = valueOf(p, now, -1);
            ctx.offsets.putPending(r.producerId(), r.groupId(), p.partition(), value);
            ctx.outbox.appendTransactional(
                    r.producerId(), r.producerEpoch(), GroupRecordSerde.offset(r.groupId(), p.partition(), value));
        }));
    }

    /** The producer's transaction ended with a marker in this partition: its pending offsets commit or vanish. */
    public void completeTransaction(long producerId, boolean commit) {
        int applied = ctx.offsets.completeTransaction(producerId, commit);
        if (applied > 0) {
            log.debug("Transaction of producer {} committed {} offsets", producerId, applied);
        }
    }

    private static OffsetValue valueOf(CommitPartition p, long nowMs, long expireTimestampMs) {
        return new OffsetValue(
                p.offset(), p.leaderEpoch(), p.metadata() == null ? "" : p.metadata(), nowMs, expireTimestampMs);
    }

    /** The per-partition results of a commit: the group's error, metadata too large, or written. */
    private List<PartitionResult> store(
            List<CommitPartition> partitions, Errors groupError, Consumer<CommitPartition> writer) {
        List<PartitionResult> results = new ArrayList<>(partitions.size());
        for (CommitPartition p : partitions) {
            Errors error = groupError;
            if (error == Errors.NONE
                    && p.metadata() != null
                    && p.metadata().length() > ctx.config.offsetMetadataMaxBytes()) {
                error = Errors.OFFSET_METADATA_TOO_LARGE;
            }
            if (error == Errors.NONE) {
                writer.accept(p);
            }
            results.add(new PartitionResult(p.partition(), error));
        }
        return results;
    }

    public FetchResponse fetch(FetchRequest r) {
        Group group = ctx.groups.get(r.groupId());
        if (group != null) {
            Errors error = rules.validateFetch(group, r.memberId(), r.memberEpoch());
            if (error != Errors.NONE) {
                return new FetchResponse(error, List.of());
            }
        }
        List<FetchedOffset> out = new ArrayList<>();
        if (r.partitions() == null) {
            ctx.offsets.offsets(r.groupId()).entrySet().stream()
                    .sorted(Map.Entry.comparingByKey(
                            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition)))
                    .forEach(e -> out.add(fetched(r, e.getKey(), e.getValue())));
        } else {
            for (TopicPartition tp : r.partitions()) {
                out.add(fetched(r, tp, ctx.offsets.get(r.groupId(), tp)));
            }
        }
        return new FetchResponse(Errors.NONE, out);
    }

    /** With require_stable, a partition with a transactional offset still pending is UNSTABLE_OFFSET_COMMIT. */
    private FetchedOffset fetched(FetchRequest r, TopicPartition tp, OffsetValue v) {
        if (r.requireStable() && ctx.offsets.hasPending(r.groupId(), tp)) {
            return new FetchedOffset(tp, -1, -1, "", Errors.UNSTABLE_OFFSET_COMMIT);
        }
        return v == null
                ? new FetchedOffset(tp, -1, -1, "", Errors.NONE)
                : new FetchedOffset(tp, v.offset(), v.leaderEpoch(), v.metadata(), Errors.NONE);
    }

    public CompletableFuture<DeleteResponse> delete(String groupId, List<TopicPartition> partitions) {
        Group group = ctx.groups.get(groupId);
        if (group == null) {
            return ctx.outbox.respond(new DeleteResponse(Errors.GROUP_ID_NOT_FOUND, List.of()));
        }
        Errors groupError = rules.validateOffsetDelete(group);
        if (groupError != Errors.NONE) {
            return ctx.outbox.respond(new DeleteResponse(groupError, List.of()));
        }
        Set<String> subscribed = rules.subscribedTopics(group);
        List<PartitionResult> results = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            if (subscribed == null || subscribed.contains(tp.topic())) {
                results.add(new PartitionResult(tp, Errors.GROUP_SUBSCRIBED_TO_TOPIC));
                continue;
            }
            if (ctx.offsets.get(groupId, tp) != null) {
                ctx.offsets.remove(groupId, tp);
                ctx.outbox.append(GroupRecordSerde.offset(groupId, tp, null));
            }
            results.add(new PartitionResult(tp, Errors.NONE));
        }
        return ctx.outbox.respond(new DeleteResponse(Errors.NONE, results));
    }

    /** Writes tombstones for every offset of the group, committed or pending in a transaction (deleting the group). */
    public int deleteAll(String groupId) {
        Set<TopicPartition> tps =
                new LinkedHashSet<>(ctx.offsets.offsets(groupId).keySet());
        tps.addAll(ctx.offsets.pendingPartitions(groupId));
        for (TopicPartition tp : tps) {
            ctx.offsets.remove(groupId, tp);
            ctx.outbox.append(GroupRecordSerde.offset(groupId, tp, null));
        }
        return tps.size();
    }

    /**
     * Expires offsets older than {@code offsets.retention.minutes} (or their own expiry time) that the group no
     * longer protects; returns the groups left with no offsets.
     */
    public List<String> expire() {
        long now = ctx.nowMs();
        long retentionMs = ctx.config.offsetsRetentionMs();
        List<String> emptied = new ArrayList<>();
        for (String groupId : List.copyOf(ctx.offsets.groupIds())) {
            Group group = ctx.groups.get(groupId);
            Set<String> protectedTopics = group == null ? Set.of() : rules.protectedTopics(group);
            if (protectedTopics == null) {
                continue;
            }
            long baseOverrideMs = group == null ? -1 : rules.expirationBaseMs(group);
            List<TopicPartition> expired = new ArrayList<>();
            for (Map.Entry<TopicPartition, OffsetValue> e :
                    ctx.offsets.offsets(groupId).entrySet()) {
                if (protectedTopics.contains(e.getKey().topic()) || ctx.offsets.hasPending(groupId, e.getKey())) {
                    continue;
                }
                OffsetValue v = e.getValue();
                boolean due = v.expireTimestampMs() >= 0
                        ? now >= v.expireTimestampMs()
                        : now - (baseOverrideMs >= 0 ? baseOverrideMs : v.commitTimestampMs()) >= retentionMs;
                if (due) {
                    expired.add(e.getKey());
                }
            }
            for (TopicPartition tp : expired) {
                ctx.offsets.remove(groupId, tp);
                ctx.outbox.append(GroupRecordSerde.offset(groupId, tp, null));
            }
            if (!expired.isEmpty()) {
                log.info("Expired {} offsets of group {}", expired.size(), groupId);
                if (!ctx.offsets.hasOffsets(groupId) && !ctx.offsets.hasPending(groupId)) {
                    emptied.add(groupId);
                }
            }
        }
        return emptied;
    }
}

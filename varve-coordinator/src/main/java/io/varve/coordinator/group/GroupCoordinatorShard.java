package io.varve.coordinator.group;

import io.varve.coordinator.group.classic.ClassicApi;
import io.varve.coordinator.group.classic.ClassicGroup;
import io.varve.coordinator.group.classic.ClassicGroupManager;
import io.varve.coordinator.group.classic.ClassicGroupState;
import io.varve.coordinator.group.classic.ClassicMember;
import io.varve.coordinator.group.consumer.ClassicMembers;
import io.varve.coordinator.group.consumer.ConsumerApi;
import io.varve.coordinator.group.consumer.ConsumerGroup;
import io.varve.coordinator.group.consumer.ConsumerGroupManager;
import io.varve.coordinator.group.offset.OffsetApi;
import io.varve.coordinator.group.offset.OffsetManager;
import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.coordinator.group.record.GroupRecord;
import io.varve.coordinator.group.record.GroupRecordSerde;
import io.varve.coordinator.group.record.OffsetValue;
import io.varve.coordinator.group.share.ShareApi;
import io.varve.coordinator.group.share.ShareGroup;
import io.varve.coordinator.group.share.ShareGroupConfig;
import io.varve.coordinator.group.share.ShareGroupManager;
import io.varve.coordinator.group.streams.StreamsApi;
import io.varve.coordinator.group.streams.StreamsGroup;
import io.varve.coordinator.group.streams.StreamsGroupConfig;
import io.varve.coordinator.group.streams.StreamsGroupManager;
import io.varve.coordinator.runtime.CoordinatorShard;
import io.varve.coordinator.runtime.Outbox;
import io.varve.coordinator.wire.ConsumerProtocolSubscriptions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group coordinator of one {@code __consumer_offsets} partition: every group whose id hashes to it, and
 * their offsets. A pure state machine on one thread: each call returns futures and leaves records and
 * completions in the outbox; the caller {@link #drain()}s it, writes the records, then completes the futures.
 * Time comes from the injected clock; {@link #tick()} runs the timers that are due.
 */
public final class GroupCoordinatorShard implements CoordinatorShard {
    private static final Logger log = LoggerFactory.getLogger(GroupCoordinatorShard.class);
    private static final Object EXPIRATION_TIMER = Timers.key("offsets-expiration");

    /** One line of ListGroups. */
    public record ListedGroup(String groupId, String protocolType, String state, String type) {}

    private final ShardContext ctx;
    private final ClassicGroupManager classic;
    private final ConsumerGroupManager consumer;
    private final ClassicMembers classicMembers;
    private final OffsetManager offsets;
    private final ShareGroupManager share;
    private final StreamsGroupManager streams;
    private boolean loaded;

    public GroupCoordinatorShard(
            int partition, GroupCoordinatorConfig config, LongSupplier clock, Supplier<String> uuids) {
        this(partition, config, ShareGroupConfig.defaults(), StreamsGroupConfig.defaults(), clock, uuids);
    }

    public GroupCoordinatorShard(
            int partition,
            GroupCoordinatorConfig config,
            ShareGroupConfig shareConfig,
            StreamsGroupConfig streamsConfig,
            LongSupplier clock,
            Supplier<String> uuids) {
        this(partition, config, shareConfig, streamsConfig, clock, uuids, GroupConfigLookup.NONE);
    }

    /** @param groupConfigs each group's own settings (group configs), read whenever one is used */
    public GroupCoordinatorShard(
            int partition,
            GroupCoordinatorConfig config,
            ShareGroupConfig shareConfig,
            StreamsGroupConfig streamsConfig,
            LongSupplier clock,
            Supplier<String> uuids,
            GroupConfigLookup groupConfigs) {
        this.ctx = new ShardContext(partition, config, clock, uuids, groupConfigs);
        this.classic = new ClassicGroupManager(ctx);
        this.consumer = new ConsumerGroupManager(ctx, classic);
        this.classicMembers = new ClassicMembers(ctx, consumer);
        this.share = new ShareGroupManager(ctx, shareConfig);
        this.streams = new StreamsGroupManager(ctx, streamsConfig);
        this.offsets = new OffsetManager(ctx, new Rules());
    }

    public int partition() {
        return ctx.partition;
    }

    // ---------------------------------------------------------------- loading

    /** Applies one record read back from the partition, in log order, before {@link #onLoadComplete()}. */
    public void replay(CoordinatorRecord record) {
        replay(record, Outbox.NO_PRODUCER_ID);
    }

    /**
     * Applies one record read back from the partition, in log order; {@code producerId} is the producer of the
     * transactional batch holding it ({@link Outbox#NO_PRODUCER_ID} for a plain batch): its offsets stay pending
     * until the transaction's marker is replayed ({@link #replayTransactionMarker}).
     */
    public void replay(CoordinatorRecord record, long producerId) {
        if (loaded) {
            throw new IllegalStateException("partition " + ctx.partition + " replays a record after loading");
        }
        GroupRecord r = GroupRecordSerde.decode(record);
        if (r instanceof GroupRecord.Offset o && producerId != Outbox.NO_PRODUCER_ID) {
            if (o.value() != null) {
                ctx.offsets.putPending(producerId, o.groupId(), o.partition(), o.value());
            }
        } else if (r instanceof GroupRecord.Offset o) {
            if (o.value() == null) {
                ctx.offsets.remove(o.groupId(), o.partition());
            } else {
                ctx.offsets.put(o.groupId(), o.partition(), o.value());
            }
        } else if (r instanceof GroupRecord.ClassicGroup c) {
            if (c.value() == null) {
                ctx.groups.remove(c.groupId());
            } else {
                ctx.groups.put(c.groupId(), classic.load(c.groupId(), c.value()));
            }
        } else if (r instanceof GroupRecord.ConsumerGroup c) {
            if (c.value() == null) {
                ctx.groups.remove(c.groupId());
            } else {
                ctx.groups.put(c.groupId(), consumer.load(c.groupId(), c.value()));
            }
        } else if (r instanceof GroupRecord.StreamsGroup sg) {
            if (sg.value() == null) {
                ctx.groups.remove(sg.groupId());
            } else {
                ctx.groups.put(sg.groupId(), streams.load(sg.groupId(), sg.value()));
            }
        }
    }

    /** Starts members' sessions and the offset expiry timer; offsets without a group get an empty simple group. */
    public void onLoadComplete() {
        for (Group g : ctx.groups.values()) {
            if (g instanceof ClassicGroup c) {
                classic.onLoaded(c);
            } else if (g instanceof ConsumerGroup c) {
                consumer.onLoaded(c);
            } else if (g instanceof StreamsGroup sg) {
                streams.onLoaded(sg);
            }
        }
        Set<String> offsetGroups = new HashSet<>(ctx.offsets.groupIds());
        offsetGroups.addAll(ctx.offsets.pendingGroupIds());
        for (String groupId : offsetGroups) {
            if (!ctx.groups.containsKey(groupId)) {
                classic.createSimpleGroup(groupId);
            }
        }
        scheduleExpiration();
        loaded = true;
        log.info(
                "Group coordinator of __consumer_offsets-{} loaded {} groups and {} offsets ({} open transactions)",
                ctx.partition,
                ctx.groups.size(),
                ctx.offsets.size(),
                ctx.offsets.pendingProducerCount());
    }

    /** A COMMIT or ABORT marker of the producer read back from the partition, in log order. */
    public void replayTransactionMarker(long producerId, boolean commit) {
        if (loaded) {
            throw new IllegalStateException("partition " + ctx.partition + " replays a marker after loading");
        }
        offsets.completeTransaction(producerId, commit);
    }

    // ---------------------------------------------------------------- classic protocol
    // A classic member of a non-empty consumer group (online migration) is answered by the consumer group.

    /** A JoinGroup to a group that cannot be a consumer group with members (tests of classic groups). */
    public CompletableFuture<ClassicApi.JoinResponse> joinGroup(ClassicApi.JoinRequest r) {
        return joinGroup(r, TopicsSnapshot.EMPTY);
    }

    public CompletableFuture<ClassicApi.JoinResponse> joinGroup(ClassicApi.JoinRequest r, TopicsSnapshot topics) {
        if (ctx.groups.get(r.groupId()) instanceof ConsumerGroup c && !c.hasNoMembers()) {
            return classicMembers.join(c, r, topics);
        }
        return classic.join(r);
    }

    public CompletableFuture<ClassicApi.SyncResponse> syncGroup(ClassicApi.SyncRequest r) {
        if (ctx.groups.get(r.groupId()) instanceof ConsumerGroup c) {
            return classicMembers.sync(c, r);
        }
        return classic.sync(r);
    }

    public CompletableFuture<Errors> heartbeat(ClassicApi.HeartbeatRequest r) {
        if (ctx.groups.get(r.groupId()) instanceof ConsumerGroup c) {
            return classicMembers.heartbeat(c, r);
        }
        return classic.heartbeat(r);
    }

    public CompletableFuture<ClassicApi.LeaveResponse> leaveGroup(ClassicApi.LeaveRequest r) {
        if (ctx.groups.get(r.groupId()) instanceof ConsumerGroup c) {
            return classicMembers.leave(c, r);
        }
        return classic.leave(r);
    }

    // ---------------------------------------------------------------- consumer protocol

    public CompletableFuture<ConsumerApi.HeartbeatResponse> consumerGroupHeartbeat(
            ConsumerApi.HeartbeatRequest r, TopicsSnapshot topics) {
        return ctx.outbox.respond(consumer.heartbeat(r, topics));
    }

    public CompletableFuture<ConsumerApi.GroupDescription> consumerGroupDescribe(
            String groupId, TopicsSnapshot topics) {
        Group g = ctx.groups.get(groupId);
        if (g instanceof ConsumerGroup c) {
            return ctx.outbox.respond(consumer.describe(c, topics));
        }
        String message =
                g == null ? "Group " + groupId + " not found." : "Group " + groupId + " is not a consumer group.";
        return ctx.outbox.respond(ConsumerApi.GroupDescription.error(groupId, Errors.GROUP_ID_NOT_FOUND, message));
    }

    // ---------------------------------------------------------------- share groups (KIP-932)

    public CompletableFuture<ShareApi.HeartbeatResponse> shareGroupHeartbeat(
            ShareApi.HeartbeatRequest r, TopicsSnapshot topics) {
        return ctx.outbox.respond(share.heartbeat(r, topics));
    }

    public CompletableFuture<ShareApi.GroupDescription> shareGroupDescribe(String groupId, TopicsSnapshot topics) {
        Group g = ctx.groups.get(groupId);
        if (g instanceof ShareGroup s) {
            return ctx.outbox.respond(share.describe(s, topics));
        }
        String message = g == null ? "Group " + groupId + " not found." : "Group " + groupId + " is not a share group.";
        return ctx.outbox.respond(ShareApi.GroupDescription.error(groupId, Errors.GROUP_ID_NOT_FOUND, message));
    }

    /**
     * Whether a share group's offsets may be altered or deleted: NONE when it is empty or does not exist,
     * NON_EMPTY_GROUP when it has members, GROUP_ID_NOT_FOUND when the id belongs to another kind of group.
     */
    public CompletableFuture<Errors> shareGroupOffsetsChangeable(String groupId) {
        Group g = ctx.groups.get(groupId);
        Errors e = g == null
                ? Errors.NONE
                : !(g instanceof ShareGroup)
                        ? Errors.GROUP_ID_NOT_FOUND
                        : g.hasNoMembers() ? Errors.NONE : Errors.NON_EMPTY_GROUP;
        return ctx.outbox.respond(e);
    }

    // ---------------------------------------------------------------- streams protocol

    public CompletableFuture<StreamsApi.HeartbeatResponse> streamsGroupHeartbeat(
            StreamsApi.HeartbeatRequest r, TopicsSnapshot topics) {
        return ctx.outbox.respond(streams.heartbeat(r, topics));
    }

    public CompletableFuture<StreamsApi.GroupDescription> streamsGroupDescribe(String groupId, TopicsSnapshot topics) {
        Group g = ctx.groups.get(groupId);
        if (g instanceof StreamsGroup sg) {
            return ctx.outbox.respond(streams.describe(sg, topics));
        }
        String message =
                g == null ? "Group " + groupId + " not found." : "Group " + groupId + " is not a streams group.";
        return ctx.outbox.respond(StreamsApi.GroupDescription.error(groupId, Errors.GROUP_ID_NOT_FOUND, message));
    }

    // ---------------------------------------------------------------- offsets

    public CompletableFuture<List<OffsetApi.PartitionResult>> commitOffsets(OffsetApi.CommitRequest r) {
        return offsets.commit(r);
    }

    /** TxnOffsetCommit: offsets of the producer's transaction, pending until its marker reaches this partition. */
    public CompletableFuture<List<OffsetApi.PartitionResult>> commitTransactionalOffsets(OffsetApi.TxnCommitRequest r) {
        return offsets.commitTransactional(r);
    }

    /**
     * The transaction coordinator wrote the producer's COMMIT or ABORT marker to this partition: the producer's
     * pending offsets become committed, or are dropped. Idempotent (a marker seen by the load and then reported
     * again changes nothing).
     */
    public CompletableFuture<Void> onTransactionCompleted(long producerId, boolean commit) {
        offsets.completeTransaction(producerId, commit);
        return ctx.outbox.respond(null);
    }

    public CompletableFuture<OffsetApi.FetchResponse> fetchOffsets(OffsetApi.FetchRequest r) {
        return ctx.outbox.respond(offsets.fetch(r));
    }

    public CompletableFuture<OffsetApi.DeleteResponse> deleteOffsets(String groupId, List<TopicPartition> partitions) {
        return offsets.delete(groupId, partitions);
    }

    /** The committed offset of every partition of the group (empty when it has none). */
    public CompletableFuture<Map<TopicPartition, Long>> committedOffsets(String groupId) {
        Map<TopicPartition, Long> out = new LinkedHashMap<>();
        ctx.offsets.offsets(groupId).forEach((tp, v) -> out.put(tp, v.offset()));
        return ctx.outbox.respond(out);
    }

    // ---------------------------------------------------------------- admin

    public CompletableFuture<ClassicApi.GroupDescription> describeGroup(String groupId) {
        Group g = ctx.groups.get(groupId);
        if (g instanceof ClassicGroup c) {
            return ctx.outbox.respond(classic.describe(c));
        }
        String message =
                g == null ? "Group " + groupId + " not found." : "Group " + groupId + " is not a classic group.";
        return ctx.outbox.respond(ClassicApi.GroupDescription.error(groupId, Errors.GROUP_ID_NOT_FOUND, message));
    }

    /** Groups whose state and type match the filters (case-insensitive; an empty filter matches all). */
    public CompletableFuture<List<ListedGroup>> listGroups(Set<String> statesFilter, Set<String> typesFilter) {
        Set<String> states = lower(statesFilter);
        Set<String> types = lower(typesFilter);
        List<ListedGroup> out = new ArrayList<>();
        for (Group g : ctx.groups.values()) {
            String state = g.stateName();
            String type = g.type().displayName();
            if ((states.isEmpty() || states.contains(state.toLowerCase(Locale.ROOT)))
                    && (types.isEmpty() || types.contains(type.toLowerCase(Locale.ROOT)))) {
                out.add(new ListedGroup(g.groupId(), g.protocolType(), state, type));
            }
        }
        return ctx.outbox.respond(out);
    }

    private static Set<String> lower(Set<String> values) {
        Set<String> out = new HashSet<>();
        values.forEach(v -> out.add(v.toLowerCase(Locale.ROOT)));
        return out;
    }

    /** Deletes empty groups with their offsets: GROUP_ID_NOT_FOUND or NON_EMPTY_GROUP otherwise. */
    public CompletableFuture<Map<String, Errors>> deleteGroups(List<String> groupIds) {
        Map<String, Errors> results = new LinkedHashMap<>();
        for (String groupId : groupIds) {
            Group g = ctx.groups.get(groupId);
            if (g == null || (g instanceof ClassicGroup c && c.state() == ClassicGroupState.DEAD)) {
                results.put(groupId, Errors.GROUP_ID_NOT_FOUND);
            } else if (!g.hasNoMembers() || (g instanceof ClassicGroup c && c.state() != ClassicGroupState.EMPTY)) {
                results.put(groupId, Errors.NON_EMPTY_GROUP);
            } else {
                deleteGroup(g);
                results.put(groupId, Errors.NONE);
            }
        }
        return ctx.outbox.respond(results);
    }

    private void deleteGroup(Group g) {
        int deletedOffsets = offsets.deleteAll(g.groupId());
        if (g instanceof ClassicGroup c) {
            ctx.outbox.append(GroupRecordSerde.classicGroup(g.groupId(), null));
            classic.markDead(c);
        } else if (g instanceof ShareGroup) {
            // Share groups' membership is not written to the log: nothing to tombstone.
        } else if (g instanceof StreamsGroup) {
            ctx.outbox.append(GroupRecordSerde.streamsGroup(g.groupId(), null));
        } else {
            ctx.outbox.append(GroupRecordSerde.consumerGroup(g.groupId(), null));
        }
        ctx.groups.remove(g.groupId());
        log.info("Deleted group {} and its {} offsets", g.groupId(), deletedOffsets);
    }

    // ---------------------------------------------------------------- time

    /** Runs every timer due at the clock's current time. */
    @Override
    public void tick() {
        ctx.timers.expire(ctx.nowMs());
    }

    /** When {@link #tick()} next has something to do, or {@link Long#MAX_VALUE}. */
    @Override
    public long nextDeadlineMs() {
        return ctx.timers.nextDeadlineMs();
    }

    @Override
    public Outbox.Output drain() {
        return ctx.outbox.drain();
    }

    private void scheduleExpiration() {
        ctx.timers.schedule(EXPIRATION_TIMER, ctx.nowMs() + ctx.config.offsetsRetentionCheckIntervalMs(), () -> {
            expireOffsets();
            scheduleExpiration();
        });
    }

    /** Expires old offsets now; groups left empty with no offsets are deleted. */
    public void expireOffsets() {
        for (String groupId : offsets.expire()) {
            Group g = ctx.groups.get(groupId);
            if (g != null
                    && g.hasNoMembers()
                    && !(g instanceof ClassicGroup c && c.state() != ClassicGroupState.EMPTY)) {
                deleteGroup(g);
            }
        }
    }

    // ---------------------------------------------------------------- inspection (tests, metrics)

    public Group group(String groupId) {
        return ctx.groups.get(groupId);
    }

    public OffsetValue committedOffset(String groupId, TopicPartition tp) {
        return ctx.offsets.get(groupId, tp);
    }

    public ShareGroupConfig shareConfig() {
        return share.config();
    }

    public int timerCount() {
        return ctx.timers.size();
    }

    /** How protocols decide about offsets: commit checks, subscriptions and expiry. */
    private final class Rules implements OffsetManager.GroupRules {
        @Override
        public Group groupForCommit(OffsetApi.CommitRequest r) {
            Group g = ctx.groups.get(r.groupId());
            boolean simple = r.generationIdOrMemberEpoch() < 0
                    && (r.memberId() == null || r.memberId().isEmpty())
                    && r.groupInstanceId() == null;
            return g == null && simple ? classic.createSimpleGroup(r.groupId()) : g;
        }

        @Override
        public Errors validateCommit(Group g, OffsetApi.CommitRequest r) {
            if (g instanceof ShareGroup) {
                return Errors.GROUP_ID_NOT_FOUND;
            }
            if (g instanceof ClassicGroup c) {
                return classic.validateOffsetCommit(
                        c, r.generationIdOrMemberEpoch(), r.memberId(), r.groupInstanceId());
            }
            if (g instanceof StreamsGroup sg) {
                return streams.validateOffsetCommit(sg, r.generationIdOrMemberEpoch(), r.memberId());
            }
            return consumer.validateOffsetCommit((ConsumerGroup) g, r.generationIdOrMemberEpoch(), r.memberId());
        }

        @Override
        public Group groupForTxnCommit(OffsetApi.TxnCommitRequest r) {
            Group g = ctx.groups.get(r.groupId());
            return g == null && r.generationId() < 0 ? classic.createSimpleGroup(r.groupId()) : g;
        }

        @Override
        public Errors validateTxnCommit(Group g, OffsetApi.TxnCommitRequest r) {
            if (g instanceof ShareGroup) {
                return Errors.GROUP_ID_NOT_FOUND;
            }
            if (g instanceof ClassicGroup c) {
                return classic.validateTxnOffsetCommit(c, r.generationId(), r.memberId(), r.groupInstanceId());
            }
            Errors error = g instanceof StreamsGroup sg
                    ? streams.validateOffsetCommit(sg, r.generationId(), r.memberId())
                    : consumer.validateOffsetCommit((ConsumerGroup) g, r.generationId(), r.memberId());
            // Before v6 a stale member epoch is an old generation to a transactional producer (Kafka maps it so).
            return error == Errors.STALE_MEMBER_EPOCH && !r.consumerProtocolErrors()
                    ? Errors.ILLEGAL_GENERATION
                    : error;
        }

        @Override
        public Errors validateFetch(Group g, String memberId, int memberEpoch) {
            if (g instanceof StreamsGroup sg) {
                return streams.validateOffsetFetch(sg, memberId, memberEpoch);
            }
            return g instanceof ConsumerGroup c ? consumer.validateOffsetFetch(c, memberId, memberEpoch) : Errors.NONE;
        }

        @Override
        public Set<String> subscribedTopics(Group g) {
            if (g instanceof ShareGroup) {
                return Set.of();
            }
            if (g instanceof ConsumerGroup c) {
                return consumer.subscribedTopicNames(c);
            }
            if (g instanceof StreamsGroup sg) {
                return sg.hasNoMembers() ? Set.of() : sg.sourceTopicNames();
            }
            ClassicGroup c = (ClassicGroup) g;
            if (c.hasNoMembers()) {
                return Set.of();
            }
            if (!"consumer".equals(c.protocolType()) || c.protocolName() == null) {
                return null;
            }
            Set<String> topics = new HashSet<>();
            for (ClassicMember m : c.members()) {
                Set<String> subscribed = ConsumerProtocolSubscriptions.topics(m.metadata(c.protocolName()));
                if (subscribed == null) {
                    return null;
                }
                topics.addAll(subscribed);
            }
            return topics;
        }

        @Override
        public Set<String> protectedTopics(Group g) {
            if (g instanceof ShareGroup) {
                return Set.of();
            }
            if (g instanceof ConsumerGroup c) {
                return consumer.subscribedTopicNames(c);
            }
            if (g instanceof StreamsGroup sg) {
                return sg.hasNoMembers() ? Set.of() : sg.sourceTopicNames();
            }
            ClassicGroup c = (ClassicGroup) g;
            return switch (c.state()) {
                case EMPTY, DEAD -> Set.of();
                case STABLE -> subscribedTopics(c);
                case PREPARING_REBALANCE, COMPLETING_REBALANCE -> null;
            };
        }

        @Override
        public Errors validateOffsetDelete(Group g) {
            if (g instanceof ClassicGroup c) {
                if (c.state() == ClassicGroupState.DEAD) {
                    return Errors.GROUP_ID_NOT_FOUND;
                }
                if (!c.hasNoMembers() && !"consumer".equals(c.protocolType())) {
                    return Errors.NON_EMPTY_GROUP;
                }
            }
            return Errors.NONE;
        }

        @Override
        public long expirationBaseMs(Group g) {
            return g instanceof ClassicGroup c
                            && c.state() == ClassicGroupState.EMPTY
                            && !c.protocolType().isEmpty()
                    ? c.stateTimestampMs()
                    : -1;
        }
    }
}

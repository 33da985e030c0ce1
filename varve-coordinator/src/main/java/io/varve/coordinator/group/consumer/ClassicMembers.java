package io.varve.coordinator.group.consumer;

import io.varve.coordinator.group.ShardContext;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.classic.ClassicApi.HeartbeatRequest;
import io.varve.coordinator.group.classic.ClassicApi.JoinRequest;
import io.varve.coordinator.group.classic.ClassicApi.JoinResponse;
import io.varve.coordinator.group.classic.ClassicApi.LeaveRequest;
import io.varve.coordinator.group.classic.ClassicApi.LeaveResponse;
import io.varve.coordinator.group.classic.ClassicApi.LeavingMember;
import io.varve.coordinator.group.classic.ClassicApi.LeftMember;
import io.varve.coordinator.group.classic.ClassicApi.SyncRequest;
import io.varve.coordinator.group.classic.ClassicApi.SyncResponse;
import io.varve.coordinator.group.classic.ClassicProtocol;
import io.varve.coordinator.group.record.ConsumerGroupValue.TopicMetadata;
import io.varve.coordinator.wire.ConsumerProtocolAssignments;
import io.varve.coordinator.wire.ConsumerProtocolSubscriptions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Members of a consumer group that speak the classic protocol (KIP-848's online migration): a classic consumer
 * joins, syncs, heartbeats and leaves a consumer group as it would a classic group. Its generation is its member
 * epoch; the coordinator's assignor decides its partitions, delivered in the SyncGroup answer; it learns of a new
 * target through REBALANCE_IN_PROGRESS on its heartbeat and rejoins, reporting what it still owns, which is how
 * it gives partitions up.
 */
public final class ClassicMembers {
    private static final Logger log = LoggerFactory.getLogger(ClassicMembers.class);
    /** The protocol type of classic consumers: the only classic members a consumer group takes. */
    static final String CONSUMER_PROTOCOL_TYPE = "consumer";

    private final ShardContext ctx;
    private final ConsumerGroupManager consumer;

    public ClassicMembers(ShardContext ctx, ConsumerGroupManager consumer) {
        this.ctx = ctx;
        this.consumer = consumer;
    }

    public CompletableFuture<JoinResponse> join(ConsumerGroup group, JoinRequest r, TopicsSnapshot topics) {
        return ctx.outbox.respond(doJoin(group, r, topics));
    }

    private JoinResponse doJoin(ConsumerGroup group, JoinRequest r, TopicsSnapshot topics) {
        if (r.sessionTimeoutMs() < ctx.config.classicMinSessionTimeoutMs()
                || r.sessionTimeoutMs() > ctx.config.classicMaxSessionTimeoutMs()) {
            return JoinResponse.error(Errors.INVALID_SESSION_TIMEOUT, r.memberId());
        }
        ConsumerProtocolSubscriptions.Subscription sub = r.protocols().isEmpty()
                ? null
                : ConsumerProtocolSubscriptions.decode(r.protocols().get(0).metadata());
        if (!CONSUMER_PROTOCOL_TYPE.equals(r.protocolType()) || sub == null || !sharesProtocol(group, r)) {
            return JoinResponse.error(Errors.INCONSISTENT_GROUP_PROTOCOL, r.memberId());
        }
        boolean unknown = r.memberId() == null || r.memberId().isEmpty();
        String memberId = unknown ? ctx.uuids.get() : r.memberId();
        if (unknown && r.groupInstanceId() == null && r.requireKnownMemberId()) {
            // KIP-394: the member comes back with this id; until then it is not part of the group.
            return JoinResponse.error(Errors.MEMBER_ID_REQUIRED, memberId);
        }
        ConsumerMember member;
        String staticMemberId = group.staticMemberId(r.groupInstanceId());
        if (staticMemberId != null && !staticMemberId.equals(memberId)) {
            if (!unknown) {
                return JoinResponse.error(Errors.FENCED_INSTANCE_ID, memberId);
            }
            member = consumer.replaceStaticMember(group, group.member(staticMemberId), memberId);
        } else {
            member = group.member(memberId);
            if (member != null && member.classic == null) {
                return JoinResponse.error(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId);
            }
            if (member == null) {
                if (group.members.size() >= ctx.config.consumerMaxSize()) {
                    return JoinResponse.error(Errors.GROUP_MAX_SIZE_REACHED, memberId);
                }
                member = new ConsumerMember(memberId);
                member.instanceId = r.groupInstanceId();
                group.addMember(member);
                log.info("Classic member {} joins consumer group {}", memberId, group.groupId());
            }
        }
        boolean bump = update(member, r, sub);
        Map<String, TopicMetadata> subscribed = consumer.subscribedTopics(group, topics);
        if (!subscribed.equals(group.subscribedTopics)) {
            group.subscribedTopics = subscribed;
            bump = true;
        }
        if (bump) {
            group.groupEpoch++;
            log.info("Consumer group {} moves to epoch {}", group.groupId(), group.groupEpoch);
        }
        if (group.groupEpoch > group.assignmentEpoch) {
            consumer.computeTargetAssignment(group, topics);
        }
        Map<Uuid, Set<Integer>> owned = GroupConversions.byId(sub.ownedPartitions(), topics);
        MemberReconciler.reconcile(group, member, owned);
        if (member.state == MemberState.UNREVOKED_PARTITIONS) {
            // What the member reports owning is what it kept: an eager consumer gave everything up before it
            // joined, a cooperative one what it was told to revoke at the last sync.
            MemberReconciler.reconcile(group, member, owned);
        }
        consumer.persist(group);
        consumer.scheduleSession(group, member);
        consumer.scheduleRevocationTimeout(group, member);
        return new JoinResponse(
                Errors.NONE,
                member.memberEpoch,
                CONSUMER_PROTOCOL_TYPE,
                member.classic.protocolName(),
                "",
                false,
                memberId,
                List.of());
    }

    /** Applies the JoinGroup's fields; true when the subscription changed (a new group epoch). */
    private static boolean update(ConsumerMember m, JoinRequest r, ConsumerProtocolSubscriptions.Subscription sub) {
        boolean changed = false;
        m.rebalanceTimeoutMs = r.rebalanceTimeoutMs();
        m.clientId = r.clientId();
        m.clientHost = r.clientHost();
        m.serverAssignor = null;
        m.classic = new ClassicMetadata(r.sessionTimeoutMs(), r.protocols());
        List<String> names = List.copyOf(sub.topics());
        if (!names.equals(m.subscribedTopicNames) || m.subscribedTopicRegex != null) {
            m.subscribedTopicNames = names;
            m.subscribedTopicRegex = null;
            changed = true;
        }
        if (!Objects.equals(sub.rackId(), m.rackId)) {
            m.rackId = sub.rackId();
            changed = true;
        }
        return changed;
    }

    /** A joining classic member must share a protocol with the group's other classic members. */
    private static boolean sharesProtocol(ConsumerGroup group, JoinRequest r) {
        Set<String> common = null;
        for (ConsumerMember m : group.members.values()) {
            if (m.classic == null || m.memberId.equals(r.memberId())) {
                continue;
            }
            Set<String> names = new HashSet<>();
            m.classic.protocols().forEach(p -> names.add(p.name()));
            if (common == null) {
                common = names;
            } else {
                common.retainAll(names);
            }
        }
        if (common == null) {
            return true;
        }
        for (ClassicProtocol p : r.protocols()) {
            if (common.contains(p.name())) {
                return true;
            }
        }
        return false;
    }

    public CompletableFuture<SyncResponse> sync(ConsumerGroup group, SyncRequest r) {
        ConsumerMember m = group.member(r.memberId());
        Errors error = validate(group, m, r.memberId(), r.groupInstanceId(), r.generationId());
        if (error == Errors.NONE
                && ((r.protocolType() != null && !CONSUMER_PROTOCOL_TYPE.equals(r.protocolType()))
                        || (r.protocolName() != null && !r.protocolName().equals(m.classic.protocolName())))) {
            error = Errors.INCONSISTENT_GROUP_PROTOCOL;
        }
        if (error == Errors.NONE && group.groupEpoch > m.memberEpoch && m.state != MemberState.UNREVOKED_PARTITIONS) {
            error = Errors.REBALANCE_IN_PROGRESS;
        }
        if (error != Errors.NONE) {
            return ctx.outbox.respond(SyncResponse.error(error));
        }
        consumer.scheduleSession(group, m);
        byte[] assignment =
                ConsumerProtocolAssignments.encode(new GroupConversions.TopicsById(group).byName(m.assigned));
        return ctx.outbox.respond(
                new SyncResponse(Errors.NONE, CONSUMER_PROTOCOL_TYPE, m.classic.protocolName(), assignment));
    }

    public CompletableFuture<Errors> heartbeat(ConsumerGroup group, HeartbeatRequest r) {
        ConsumerMember m = group.member(r.memberId());
        Errors error = validate(group, m, r.memberId(), r.groupInstanceId(), r.generationId());
        if (error != Errors.NONE) {
            return ctx.outbox.respond(error);
        }
        consumer.scheduleSession(group, m);
        return ctx.outbox.respond(mustRejoin(group, m) ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE);
    }

    /**
     * A classic member only moves towards its target when it rejoins, so it is asked to whenever there is
     * something to move: a newer group epoch, partitions to give up, or a partition it waits for that is free now.
     */
    private static boolean mustRejoin(ConsumerGroup group, ConsumerMember m) {
        if (group.groupEpoch > m.memberEpoch || m.state == MemberState.UNREVOKED_PARTITIONS) {
            return true;
        }
        if (m.state != MemberState.UNRELEASED_PARTITIONS) {
            return false;
        }
        for (Map.Entry<Uuid, Set<Integer>> e : group.targetOf(m.memberId).entrySet()) {
            for (int p : e.getValue()) {
                if (group.ownerOf(e.getKey(), p) == null) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Errors validate(
            ConsumerGroup group, ConsumerMember m, String memberId, String instanceId, int generationId) {
        if (instanceId != null) {
            String staticMemberId = group.staticMemberId(instanceId);
            if (staticMemberId == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (!staticMemberId.equals(memberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
        }
        if (m == null || m.classic == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return generationId == m.memberEpoch ? Errors.NONE : Errors.ILLEGAL_GENERATION;
    }

    public CompletableFuture<LeaveResponse> leave(ConsumerGroup group, LeaveRequest r) {
        List<LeftMember> results = new ArrayList<>();
        for (LeavingMember leaving : r.members()) {
            results.add(new LeftMember(leaving.memberId(), leaving.groupInstanceId(), leave(group, leaving)));
        }
        return ctx.outbox.respond(new LeaveResponse(Errors.NONE, results));
    }

    private Errors leave(ConsumerGroup group, LeavingMember leaving) {
        String memberId = leaving.memberId();
        if (leaving.groupInstanceId() != null) {
            String staticMemberId = group.staticMemberId(leaving.groupInstanceId());
            if (staticMemberId == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (memberId != null && !memberId.isEmpty() && !memberId.equals(staticMemberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
            memberId = staticMemberId;
        }
        ConsumerMember m = memberId == null ? null : group.member(memberId);
        if (m == null || m.classic == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        String reason = leaving.reason() == null ? "" : " (" + leaving.reason() + ")";
        // The group may become a classic group here (a downgrade), once no consumer-protocol member is left.
        consumer.removeMember(group, m, "left the group" + reason);
        return Errors.NONE;
    }
}

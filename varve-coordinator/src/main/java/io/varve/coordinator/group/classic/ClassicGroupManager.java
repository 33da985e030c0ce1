package io.varve.coordinator.group.classic;

import io.varve.coordinator.group.ShardContext;
import io.varve.coordinator.group.classic.ClassicApi.HeartbeatRequest;
import io.varve.coordinator.group.classic.ClassicApi.JoinRequest;
import io.varve.coordinator.group.classic.ClassicApi.JoinResponse;
import io.varve.coordinator.group.classic.ClassicApi.LeaveRequest;
import io.varve.coordinator.group.classic.ClassicApi.LeaveResponse;
import io.varve.coordinator.group.classic.ClassicApi.LeavingMember;
import io.varve.coordinator.group.classic.ClassicApi.LeftMember;
import io.varve.coordinator.group.classic.ClassicApi.SyncRequest;
import io.varve.coordinator.group.classic.ClassicApi.SyncResponse;
import io.varve.coordinator.group.record.ClassicGroupValue;
import io.varve.coordinator.group.record.GroupRecordSerde;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic protocol's transitions: JoinGroup, SyncGroup, Heartbeat, LeaveGroup, session and rebalance
 * timeouts. Kafka's documented behaviour is the reference: a rebalance completes when every member has
 * rejoined (or at the rebalance timeout, dropping dynamic members that did not); the group record is written
 * when the leader's assignment arrives.
 */
public final class ClassicGroupManager {
    private static final Logger log = LoggerFactory.getLogger(ClassicGroupManager.class);

    private final ShardContext ctx;

    private final ClassicRebalancer rebalancer;
    private final JoinGroupHandler joins;

    public ClassicGroupManager(ShardContext ctx) {
        this.ctx = ctx;
        this.rebalancer = new ClassicRebalancer(ctx);
        this.joins = new JoinGroupHandler(ctx, rebalancer);
    }

    public CompletableFuture<JoinResponse> join(JoinRequest r) {
        return joins.join(r);
    }

    public CompletableFuture<SyncResponse> sync(SyncRequest r) {
        ClassicGroup group = classicGroup(r.groupId());
        if (group == null) {
            return ctx.outbox.respond(SyncResponse.error(Errors.UNKNOWN_MEMBER_ID));
        }
        Errors invalid = validateMember(group, r.memberId(), r.groupInstanceId());
        if (invalid == Errors.NONE && r.generationId() != group.generationId) {
            invalid = Errors.ILLEGAL_GENERATION;
        }
        if (invalid == Errors.NONE
                && ((r.protocolType() != null && !r.protocolType().equals(group.protocolType))
                        || (r.protocolName() != null && !r.protocolName().equals(group.protocolName)))) {
            invalid = Errors.INCONSISTENT_GROUP_PROTOCOL;
        }
        if (invalid != Errors.NONE) {
            return ctx.outbox.respond(SyncResponse.error(invalid));
        }
        ClassicMember member = group.member(r.memberId());
        CompletableFuture<SyncResponse> f = new CompletableFuture<>();
        switch (group.state) {
            case EMPTY, DEAD -> ctx.outbox.respond(f, SyncResponse.error(Errors.UNKNOWN_MEMBER_ID));
            case PREPARING_REBALANCE -> ctx.outbox.respond(f, SyncResponse.error(Errors.REBALANCE_IN_PROGRESS));
            case COMPLETING_REBALANCE -> {
                if (member.awaitingSync != null) {
                    ctx.outbox.respond(member.awaitingSync, SyncResponse.error(Errors.REBALANCE_IN_PROGRESS));
                }
                member.awaitingSync = f;
                markSynced(group, member);
                if (group.isLeader(member.memberId)) {
                    for (ClassicMember m : group.members.values()) {
                        byte[] a = r.assignments().get(m.memberId);
                        m.assignment = a == null ? new byte[0] : a;
                    }
                    group.transitionTo(ClassicGroupState.STABLE, ctx.nowMs());
                    ctx.outbox.append(GroupRecordSerde.classicGroup(group.groupId(), group.toValue()));
                    for (ClassicMember m : group.members.values()) {
                        if (m.awaitingSync != null) {
                            ctx.outbox.respond(m.awaitingSync, ok(group, m));
                            m.awaitingSync = null;
                        }
                    }
                    log.info(
                            "Group {} is stable at generation {} with {} members",
                            group.groupId(),
                            group.generationId,
                            group.members.size());
                }
            }
            case STABLE -> {
                markSynced(group, member);
                ctx.outbox.respond(f, ok(group, member));
            }
        }
        return f;
    }

    private void markSynced(ClassicGroup group, ClassicMember member) {
        group.pendingSyncMembers.remove(member.memberId);
        if (group.pendingSyncMembers.isEmpty()) {
            ctx.timers.cancel(ClassicRebalancer.syncKey(group));
        }
        rebalancer.scheduleSession(group, member);
    }

    private static SyncResponse ok(ClassicGroup group, ClassicMember m) {
        return new SyncResponse(Errors.NONE, group.protocolType, group.protocolName, m.assignment);
    }

    public CompletableFuture<Errors> heartbeat(HeartbeatRequest r) {
        ClassicGroup group = classicGroup(r.groupId());
        if (group == null) {
            return ctx.outbox.respond(Errors.UNKNOWN_MEMBER_ID);
        }
        Errors invalid = validateMember(group, r.memberId(), r.groupInstanceId());
        if (invalid == Errors.NONE && r.generationId() != group.generationId) {
            invalid = Errors.ILLEGAL_GENERATION;
        }
        if (invalid != Errors.NONE) {
            return ctx.outbox.respond(invalid);
        }
        ClassicMember member = group.member(r.memberId());
        return ctx.outbox.respond(
                switch (group.state) {
                    case EMPTY, DEAD -> Errors.UNKNOWN_MEMBER_ID;
                    case PREPARING_REBALANCE -> {
                        rebalancer.scheduleSession(group, member);
                        yield Errors.REBALANCE_IN_PROGRESS;
                    }
                    case COMPLETING_REBALANCE, STABLE -> {
                        rebalancer.scheduleSession(group, member);
                        yield Errors.NONE;
                    }
                });
    }

    public CompletableFuture<LeaveResponse> leave(LeaveRequest r) {
        ClassicGroup group = classicGroup(r.groupId());
        if (group == null) {
            List<LeftMember> all = r.members().stream()
                    .map(m -> new LeftMember(m.memberId(), m.groupInstanceId(), Errors.UNKNOWN_MEMBER_ID))
                    .toList();
            return ctx.outbox.respond(new LeaveResponse(Errors.UNKNOWN_MEMBER_ID, all));
        }
        List<LeftMember> results = new ArrayList<>();
        for (LeavingMember leaving : r.members()) {
            results.add(new LeftMember(leaving.memberId(), leaving.groupInstanceId(), leave(group, leaving)));
        }
        rebalancer.dropIfUnused(group);
        return ctx.outbox.respond(new LeaveResponse(Errors.NONE, results));
    }

    private Errors leave(ClassicGroup group, LeavingMember leaving) {
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
        } else if (group.pendingMembers.remove(memberId)) {
            ctx.timers.cancel(ClassicRebalancer.pendingKey(group, memberId));
            rebalancer.tryCompleteJoin(group);
            return Errors.NONE;
        }
        ClassicMember member = group.member(memberId);
        if (member == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        String reason = leaving.reason() == null ? "" : " (" + leaving.reason() + ")";
        rebalancer.removeMemberAndUpdateGroup(group, member, "member " + memberId + " left" + reason);
        return Errors.NONE;
    }

    Errors validateMember(ClassicGroup group, String memberId, String groupInstanceId) {
        if (groupInstanceId != null) {
            String staticMemberId = group.staticMemberId(groupInstanceId);
            if (staticMemberId == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (!staticMemberId.equals(memberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
        }
        return group.member(memberId) == null ? Errors.UNKNOWN_MEMBER_ID : Errors.NONE;
    }

    /**
     * Checks an OffsetCommit against a classic group (Kafka's rules): a commit with a generation or member
     * identity must come from the current generation's member; a simple commit (generation -1, no member) is
     * only accepted by an empty group; nothing is accepted while the assignment is being distributed.
     */
    public Errors validateOffsetCommit(ClassicGroup group, int generationId, String memberId, String groupInstanceId) {
        if (group.state == ClassicGroupState.DEAD) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        boolean fromMember = generationId >= 0 || (memberId != null && !memberId.isEmpty()) || groupInstanceId != null;
        if (!fromMember) {
            return group.state == ClassicGroupState.EMPTY ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
        }
        if (generationId < 0 && group.state == ClassicGroupState.EMPTY) {
            return Errors.NONE;
        }
        Errors invalid = validateMember(group, memberId, groupInstanceId);
        if (invalid != Errors.NONE) {
            return invalid;
        }
        if (generationId != group.generationId) {
            return Errors.ILLEGAL_GENERATION;
        }
        if (group.state == ClassicGroupState.COMPLETING_REBALANCE) {
            return Errors.REBALANCE_IN_PROGRESS;
        }
        rebalancer.scheduleSession(group, group.member(memberId));
        return Errors.NONE;
    }

    /**
     * Checks a TxnOffsetCommit against a classic group (KIP-447): as an OffsetCommit, except that a producer
     * without the consumer's group metadata (generation -1, no member) may commit to a non-empty group, and a
     * commit during COMPLETING_REBALANCE is accepted (the member's generation is already the new one).
     */
    public Errors validateTxnOffsetCommit(
            ClassicGroup group, int generationId, String memberId, String groupInstanceId) {
        if (group.state == ClassicGroupState.DEAD) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        boolean fromMember = generationId >= 0 || (memberId != null && !memberId.isEmpty()) || groupInstanceId != null;
        if (!fromMember || (generationId < 0 && group.state == ClassicGroupState.EMPTY)) {
            return Errors.NONE;
        }
        Errors invalid = validateMember(group, memberId, groupInstanceId);
        if (invalid != Errors.NONE) {
            return invalid;
        }
        return generationId != group.generationId ? Errors.ILLEGAL_GENERATION : Errors.NONE;
    }

    /** A group created by a join that never completed and holding nothing is forgotten. */
    private ClassicGroup classicGroup(String groupId) {
        return ctx.groups.get(groupId) instanceof ClassicGroup g ? g : null;
    }

    public ClassicApi.GroupDescription describe(ClassicGroup group) {
        boolean stable = group.state == ClassicGroupState.STABLE;
        List<ClassicApi.DescribedMember> members = new ArrayList<>();
        for (ClassicMember m : group.members.values()) {
            byte[] metadata = stable ? m.metadata(group.protocolName) : null;
            members.add(new ClassicApi.DescribedMember(
                    m.memberId,
                    m.groupInstanceId,
                    m.clientId,
                    m.clientHost,
                    metadata == null ? new byte[0] : metadata,
                    stable ? m.assignment : new byte[0]));
        }
        return new ClassicApi.GroupDescription(
                group.groupId(),
                Errors.NONE,
                null,
                group.state.displayName(),
                group.protocolType(),
                stable && group.protocolName != null ? group.protocolName : "",
                members);
    }

    /** A group read back from its record: members' sessions restart now. */
    public ClassicGroup load(String groupId, ClassicGroupValue value) {
        return ClassicGroup.fromValue(groupId, value);
    }

    public void onLoaded(ClassicGroup group) {
        for (ClassicMember m : group.members.values()) {
            rebalancer.scheduleSession(group, m);
        }
        if (group.rebalanceOnLoad) {
            group.rebalanceOnLoad = false;
            rebalancer.prepareRebalance(group, "it became a classic group (online downgrade)");
        }
    }

    /** An empty group created to hold simple (member-less) offset commits. */
    public ClassicGroup createSimpleGroup(String groupId) {
        ClassicGroup group = new ClassicGroup(groupId, ctx.nowMs());
        ctx.groups.put(groupId, group);
        return group;
    }

    /**
     * Online downgrade: the classic group a consumer group became, from the record just written for it (marked
     * to rebalance on load). Members' sessions start now, and a rebalance begins so every member rejoins and the
     * leader assigns afresh, as it does on a coordinator that loads the record before the rebalance ends.
     */
    public ClassicGroup adopt(String groupId, ClassicGroupValue value) {
        if (!value.rebalanceOnLoad()) {
            throw new IllegalArgumentException("a downgraded group " + groupId + " must rebalance");
        }
        ClassicGroup group = ClassicGroup.fromValue(groupId, value);
        ctx.groups.put(groupId, group);
        onLoaded(group);
        return group;
    }

    /**
     * Online upgrade: the group becomes a consumer group. Its timers stop, and it is dead to any callback still
     * holding it. Only a stable group is handed over, so no member waits for a JoinGroup or SyncGroup answer.
     */
    public void retire(ClassicGroup group) {
        if (group.state != ClassicGroupState.STABLE && group.state != ClassicGroupState.EMPTY) {
            throw new IllegalStateException("group " + group.groupId() + " is retired while " + group.state);
        }
        for (ClassicMember m : group.members.values()) {
            ctx.timers.cancel(ClassicRebalancer.sessionKey(group, m.memberId));
        }
        markDead(group);
    }

    public void markDead(ClassicGroup group) {
        ctx.timers.cancel(ClassicRebalancer.joinKey(group));
        ctx.timers.cancel(ClassicRebalancer.syncKey(group));
        for (String pending : group.pendingMembers) {
            ctx.timers.cancel(ClassicRebalancer.pendingKey(group, pending));
        }
        group.pendingMembers.clear();
        group.transitionTo(ClassicGroupState.DEAD, ctx.nowMs());
    }
}

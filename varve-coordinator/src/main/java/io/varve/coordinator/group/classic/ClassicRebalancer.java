package io.varve.coordinator.group.classic;

import io.varve.coordinator.group.ShardContext;
import io.varve.coordinator.group.Timers;
import io.varve.coordinator.group.classic.ClassicApi.JoinResponse;
import io.varve.coordinator.group.classic.ClassicApi.SyncResponse;
import io.varve.coordinator.group.record.GroupRecordSerde;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mechanics of a classic rebalance, shared by every request handler: preparing one (with Kafka's initial
 * delay for a group that was empty), completing the join phase into a new generation, the sync deadline, removing
 * members, and members' session timers.
 */
final class ClassicRebalancer {
    private static final Logger log = LoggerFactory.getLogger(ClassicRebalancer.class);

    private final ShardContext ctx;

    ClassicRebalancer(ShardContext ctx) {
        this.ctx = ctx;
    }

    void maybePrepareRebalance(ClassicGroup group, String reason) {
        if (group.state == ClassicGroupState.STABLE
                || group.state == ClassicGroupState.COMPLETING_REBALANCE
                || group.state == ClassicGroupState.EMPTY) {
            prepareRebalance(group, reason);
        }
    }

    void prepareRebalance(ClassicGroup group, String reason) {
        if (group.state == ClassicGroupState.COMPLETING_REBALANCE) {
            for (ClassicMember m : group.members.values()) {
                m.assignment = new byte[0];
                if (m.awaitingSync != null) {
                    ctx.outbox.respond(m.awaitingSync, SyncResponse.error(Errors.REBALANCE_IN_PROGRESS));
                    m.awaitingSync = null;
                }
            }
        }
        ctx.timers.cancel(syncKey(group));
        group.pendingSyncMembers.clear();
        long now = ctx.nowMs();
        int rebalanceTimeoutMs = group.maxRebalanceTimeoutMs();
        int initialDelayMs = ctx.config.initialRebalanceDelayMs();
        if (group.state == ClassicGroupState.EMPTY && initialDelayMs > 0) {
            int delayMs = Math.min(initialDelayMs, rebalanceTimeoutMs);
            group.inInitialDelay = true;
            group.newMemberAdded = false;
            group.initialDelayRemainingMs = Math.max(rebalanceTimeoutMs - delayMs, 0);
            ctx.timers.schedule(joinKey(group), now + delayMs, () -> onInitialDelayExpired(group));
        } else {
            group.inInitialDelay = false;
            ctx.timers.schedule(joinKey(group), now + rebalanceTimeoutMs, () -> completeJoin(group));
        }
        ClassicGroupState previous = group.state;
        group.transitionTo(ClassicGroupState.PREPARING_REBALANCE, now);
        log.info(
                "Group {} moves from {} to PreparingRebalance at generation {}: {}",
                group.groupId(),
                previous.displayName(),
                group.generationId,
                reason);
    }

    private void onInitialDelayExpired(ClassicGroup group) {
        if (group.newMemberAdded && group.initialDelayRemainingMs > 0) {
            int delayMs = Math.min(ctx.config.initialRebalanceDelayMs(), group.initialDelayRemainingMs);
            group.newMemberAdded = false;
            group.initialDelayRemainingMs = Math.max(group.initialDelayRemainingMs - delayMs, 0);
            ctx.timers.schedule(joinKey(group), ctx.nowMs() + delayMs, () -> onInitialDelayExpired(group));
        } else {
            completeJoin(group);
        }
    }

    void tryCompleteJoin(ClassicGroup group) {
        if (group.state == ClassicGroupState.PREPARING_REBALANCE
                && !group.inInitialDelay
                && group.hasAllMembersJoined()) {
            completeJoin(group);
        }
    }

    private void completeJoin(ClassicGroup group) {
        if (group.state != ClassicGroupState.PREPARING_REBALANCE) {
            return;
        }
        ctx.timers.cancel(joinKey(group));
        group.inInitialDelay = false;
        for (ClassicMember m : new ArrayList<>(group.members.values())) {
            if (!m.isAwaitingJoin() && !m.isStatic()) {
                ctx.timers.cancel(sessionKey(group, m.memberId));
                group.remove(m.memberId);
                log.info(
                        "Member {} left group {}: it did not rejoin within the rebalance timeout",
                        m.memberId,
                        group.groupId());
            }
        }
        long now = ctx.nowMs();
        group.generationId++;
        if (group.members.isEmpty()) {
            group.protocolName = null;
            group.leaderId = null;
            group.transitionTo(ClassicGroupState.EMPTY, now);
            ctx.outbox.append(GroupRecordSerde.classicGroup(group.groupId(), group.toValue()));
            log.info("Group {} is empty at generation {}", group.groupId(), group.generationId);
            return;
        }
        group.protocolName = group.selectProtocol();
        ClassicMember leader = group.leaderId == null ? null : group.member(group.leaderId);
        if (leader == null || !leader.isAwaitingJoin()) {
            group.members.values().stream()
                    .filter(ClassicMember::isAwaitingJoin)
                    .findFirst()
                    .ifPresent(m -> group.leaderId = m.memberId);
        }
        group.transitionTo(ClassicGroupState.COMPLETING_REBALANCE, now);
        for (ClassicMember m : group.members.values()) {
            if (m.awaitingJoin == null) {
                continue;
            }
            group.pendingSyncMembers.add(m.memberId);
            ctx.outbox.respond(
                    m.awaitingJoin,
                    new JoinResponse(
                            Errors.NONE,
                            group.generationId,
                            group.protocolType,
                            group.protocolName,
                            group.leaderId,
                            false,
                            m.memberId,
                            group.isLeader(m.memberId) ? group.joinedMembers() : List.of()));
            m.awaitingJoin = null;
            m.isNew = false;
            scheduleSession(group, m);
        }
        ctx.timers.schedule(syncKey(group), now + group.maxRebalanceTimeoutMs(), () -> onSyncTimeout(group));
        log.info(
                "Group {} moves to CompletingRebalance at generation {} with {} members, protocol {}, leader {}",
                group.groupId(),
                group.generationId,
                group.members.size(),
                group.protocolName,
                group.leaderId);
    }

    private void onSyncTimeout(ClassicGroup group) {
        if (group.pendingSyncMembers.isEmpty()
                || (group.state != ClassicGroupState.COMPLETING_REBALANCE && group.state != ClassicGroupState.STABLE)) {
            return;
        }
        List<String> late = new ArrayList<>(group.pendingSyncMembers);
        log.info("Members {} of group {} did not sync within the rebalance timeout", late, group.groupId());
        for (String memberId : late) {
            ClassicMember m = group.member(memberId);
            if (m != null) {
                dropMember(group, m);
            }
        }
        prepareRebalance(group, "members " + late + " did not sync in time");
        tryCompleteJoin(group);
    }

    void removeMemberAndUpdateGroup(ClassicGroup group, ClassicMember member, String reason) {
        dropMember(group, member);
        switch (group.state) {
            case STABLE, COMPLETING_REBALANCE -> {
                prepareRebalance(group, reason);
                tryCompleteJoin(group);
            }
            case PREPARING_REBALANCE -> tryCompleteJoin(group);
            case EMPTY, DEAD -> {}
        }
    }

    void dropMember(ClassicGroup group, ClassicMember member) {
        if (member.awaitingJoin != null) {
            ctx.outbox.respond(member.awaitingJoin, JoinResponse.error(Errors.UNKNOWN_MEMBER_ID, member.memberId));
            member.awaitingJoin = null;
        }
        if (member.awaitingSync != null) {
            ctx.outbox.respond(member.awaitingSync, SyncResponse.error(Errors.UNKNOWN_MEMBER_ID));
            member.awaitingSync = null;
        }
        ctx.timers.cancel(sessionKey(group, member.memberId));
        group.remove(member.memberId);
    }

    void scheduleSession(ClassicGroup group, ClassicMember member) {
        ctx.timers.schedule(
                sessionKey(group, member.memberId),
                ctx.nowMs() + member.sessionTimeoutMs,
                () -> onSessionExpired(group, member.memberId));
    }

    private void onSessionExpired(ClassicGroup group, String memberId) {
        ClassicMember member = group.member(memberId);
        if (member == null || member.isAwaitingJoin()) {
            return;
        }
        if (member.isAwaitingSync()) {
            scheduleSession(group, member); // waiting for the leader's assignment is not a failure of this member
            return;
        }
        log.info(
                "Member {} of group {} failed: no heartbeat within its session timeout of {} ms",
                memberId,
                group.groupId(),
                member.sessionTimeoutMs);
        removeMemberAndUpdateGroup(group, member, "member " + memberId + " session timed out");
        dropIfUnused(group);
    }

    void onPendingMemberExpired(ClassicGroup group, String memberId) {
        if (group.pendingMembers.remove(memberId)) {
            tryCompleteJoin(group);
            dropIfUnused(group);
        }
    }

    /** UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID when the caller is not the member it claims to be. */
    void dropIfUnused(ClassicGroup group) {
        if (group.state == ClassicGroupState.EMPTY
                && group.members.isEmpty()
                && group.pendingMembers.isEmpty()
                && group.generationId == 0
                && !ctx.offsets.hasOffsets(group.groupId())
                && ctx.groups.get(group.groupId()) == group) {
            ctx.groups.remove(group.groupId());
        }
    }

    static Object sessionKey(ClassicGroup g, String memberId) {
        return Timers.key("classic-session", g.groupId(), memberId);
    }

    static Object pendingKey(ClassicGroup g, String memberId) {
        return Timers.key("classic-pending", g.groupId(), memberId);
    }

    static Object joinKey(ClassicGroup g) {
        return Timers.key("classic-join", g.groupId());
    }

    static Object syncKey(ClassicGroup g) {
        return Timers.key("classic-sync", g.groupId());
    }
}

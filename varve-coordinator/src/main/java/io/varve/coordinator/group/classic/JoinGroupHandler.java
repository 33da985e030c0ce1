package io.varve.coordinator.group.classic;

import io.varve.coordinator.group.Group;
import io.varve.coordinator.group.GroupType;
import io.varve.coordinator.group.ShardContext;
import io.varve.coordinator.group.classic.ClassicApi.JoinRequest;
import io.varve.coordinator.group.classic.ClassicApi.JoinResponse;
import io.varve.coordinator.group.classic.ClassicApi.SyncResponse;
import io.varve.coordinator.group.record.GroupRecordSerde;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JoinGroup: a new member gets a member id first (KIP-394) unless it is static, joins and triggers a rebalance;
 * a known member rejoins (a rebalance if it leads or its metadata changed); a restarted static member takes its
 * instance's place, without a rebalance when the group is stable.
 */
final class JoinGroupHandler {
    private static final Logger log = LoggerFactory.getLogger(JoinGroupHandler.class);

    private final ShardContext ctx;
    private final ClassicRebalancer rebalancer;

    JoinGroupHandler(ShardContext ctx, ClassicRebalancer rebalancer) {
        this.ctx = ctx;
        this.rebalancer = rebalancer;
    }

    CompletableFuture<JoinResponse> join(JoinRequest r) {
        CompletableFuture<JoinResponse> f = new CompletableFuture<>();
        if (r.groupId() == null || r.groupId().isEmpty()) {
            return ctx.outbox.respond(JoinResponse.error(Errors.INVALID_GROUP_ID, r.memberId()));
        }
        if (r.sessionTimeoutMs() < ctx.config.classicMinSessionTimeoutMs()
                || r.sessionTimeoutMs() > ctx.config.classicMaxSessionTimeoutMs()) {
            return ctx.outbox.respond(JoinResponse.error(Errors.INVALID_SESSION_TIMEOUT, r.memberId()));
        }
        Group existing = ctx.groups.get(r.groupId());
        if (existing != null && existing.type() != GroupType.CLASSIC) {
            if (!existing.hasNoMembers() || existing.type() == GroupType.SHARE) {
                return ctx.outbox.respond(JoinResponse.error(Errors.INCONSISTENT_GROUP_PROTOCOL, r.memberId()));
            }
            log.info("Empty consumer group {} becomes a classic group", r.groupId());
            ctx.outbox.append(GroupRecordSerde.consumerGroup(r.groupId(), null));
            ctx.groups.remove(r.groupId());
            existing = null;
        }
        ClassicGroup group = (ClassicGroup) existing;
        if (group == null) {
            if (!r.memberId().isEmpty()) {
                return ctx.outbox.respond(JoinResponse.error(Errors.UNKNOWN_MEMBER_ID, r.memberId()));
            }
            group = new ClassicGroup(r.groupId(), ctx.nowMs());
            ctx.groups.put(r.groupId(), group);
        }
        if (r.memberId().isEmpty()) {
            joinNewMember(group, r, f);
        } else {
            joinKnownMember(group, r, f);
        }
        rebalancer.dropIfUnused(group);
        return f;
    }

    private void joinNewMember(ClassicGroup group, JoinRequest r, CompletableFuture<JoinResponse> f) {
        if (!group.supportsProtocols(r.protocolType(), r.protocols())) {
            ctx.outbox.respond(f, JoinResponse.error(Errors.INCONSISTENT_GROUP_PROTOCOL, ""));
            return;
        }
        String staticMemberId = group.staticMemberId(r.groupInstanceId());
        if (staticMemberId != null) {
            replaceStaticMember(group, r, staticMemberId, f);
            return;
        }
        if (group.size() >= ctx.config.classicMaxSize()) {
            ctx.outbox.respond(f, JoinResponse.error(Errors.GROUP_MAX_SIZE_REACHED, ""));
            return;
        }
        String memberId = r.clientId() + "-" + ctx.uuids.get();
        if (r.groupInstanceId() == null && r.requireKnownMemberId()) {
            group.pendingMembers.add(memberId);
            ctx.timers.schedule(
                    ClassicRebalancer.pendingKey(group, memberId),
                    ctx.nowMs() + r.sessionTimeoutMs(),
                    () -> rebalancer.onPendingMemberExpired(group, memberId));
            ctx.outbox.respond(f, JoinResponse.error(Errors.MEMBER_ID_REQUIRED, memberId));
            return;
        }
        addMemberAndRebalance(group, r, memberId, f);
    }

    private void joinKnownMember(ClassicGroup group, JoinRequest r, CompletableFuture<JoinResponse> f) {
        String memberId = r.memberId();
        if (group.pendingMembers.contains(memberId)) {
            if (!group.supportsProtocols(r.protocolType(), r.protocols())) {
                ctx.outbox.respond(f, JoinResponse.error(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId));
                return;
            }
            addMemberAndRebalance(group, r, memberId, f);
            return;
        }
        String staticMemberId = group.staticMemberId(r.groupInstanceId());
        if (staticMemberId != null && !staticMemberId.equals(memberId)) {
            ctx.outbox.respond(f, JoinResponse.error(Errors.FENCED_INSTANCE_ID, memberId));
            return;
        }
        ClassicMember member = group.member(memberId);
        if (member == null) {
            ctx.outbox.respond(f, JoinResponse.error(Errors.UNKNOWN_MEMBER_ID, memberId));
            return;
        }
        if (!group.supportsProtocols(r.protocolType(), r.protocols())) {
            ctx.outbox.respond(f, JoinResponse.error(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId));
            return;
        }
        switch (group.state) {
            case PREPARING_REBALANCE ->
                updateMemberAndRebalance(group, member, r, f, "member " + memberId + " rejoined");
            case COMPLETING_REBALANCE -> {
                if (member.matches(r.protocols())) {
                    ctx.outbox.respond(f, currentGeneration(group, memberId));
                } else {
                    updateMemberAndRebalance(group, member, r, f, "member " + memberId + " changed its metadata");
                }
            }
            case STABLE -> {
                if (group.isLeader(memberId) || !member.matches(r.protocols())) {
                    updateMemberAndRebalance(
                            group,
                            member,
                            r,
                            f,
                            group.isLeader(memberId)
                                    ? "leader " + memberId + " rejoined"
                                    : "member " + memberId + " changed its metadata");
                } else {
                    rebalancer.scheduleSession(group, member);
                    ctx.outbox.respond(f, currentGeneration(group, memberId));
                }
            }
            case EMPTY, DEAD -> ctx.outbox.respond(f, JoinResponse.error(Errors.UNKNOWN_MEMBER_ID, memberId));
        }
    }

    private JoinResponse currentGeneration(ClassicGroup group, String memberId) {
        return new JoinResponse(
                Errors.NONE,
                group.generationId,
                group.protocolType,
                group.protocolName,
                group.leaderId,
                false,
                memberId,
                group.isLeader(memberId) ? group.joinedMembers() : List.of());
    }

    private void addMemberAndRebalance(
            ClassicGroup group, JoinRequest r, String memberId, CompletableFuture<JoinResponse> f) {
        ClassicMember member = new ClassicMember(
                memberId,
                r.groupInstanceId(),
                r.clientId(),
                r.clientHost(),
                r.rebalanceTimeoutMs(),
                r.sessionTimeoutMs(),
                r.protocolType(),
                r.protocols());
        member.isNew = true;
        member.awaitingJoin = f;
        member.supportsSkipAssignment = r.supportsSkipAssignment();
        if (group.inInitialDelay) {
            group.newMemberAdded = true;
        }
        group.pendingMembers.remove(memberId);
        ctx.timers.cancel(ClassicRebalancer.pendingKey(group, memberId));
        group.add(member);
        rebalancer.maybePrepareRebalance(group, "member " + memberId + " joined" + reasonSuffix(r));
        rebalancer.tryCompleteJoin(group);
    }

    private void updateMemberAndRebalance(
            ClassicGroup group, ClassicMember member, JoinRequest r, CompletableFuture<JoinResponse> f, String reason) {
        if (member.awaitingJoin != null && member.awaitingJoin != f) {
            ctx.outbox.respond(member.awaitingJoin, JoinResponse.error(Errors.REBALANCE_IN_PROGRESS, member.memberId));
        }
        member.protocols = r.protocols();
        member.rebalanceTimeoutMs = r.rebalanceTimeoutMs();
        member.sessionTimeoutMs = r.sessionTimeoutMs();
        member.clientId = r.clientId();
        member.clientHost = r.clientHost();
        member.supportsSkipAssignment = r.supportsSkipAssignment();
        member.awaitingJoin = f;
        ctx.timers.cancel(ClassicRebalancer.sessionKey(group, member.memberId));
        rebalancer.maybePrepareRebalance(group, reason + reasonSuffix(r));
        rebalancer.tryCompleteJoin(group);
    }

    /** A restarted static member takes over its instance's slot; its old member id is fenced. */
    private void replaceStaticMember(
            ClassicGroup group, JoinRequest r, String oldMemberId, CompletableFuture<JoinResponse> f) {
        ClassicMember old = group.member(oldMemberId);
        String newMemberId = r.clientId() + "-" + ctx.uuids.get();
        if (old.awaitingJoin != null) {
            ctx.outbox.respond(old.awaitingJoin, JoinResponse.error(Errors.FENCED_INSTANCE_ID, oldMemberId));
        }
        if (old.awaitingSync != null) {
            ctx.outbox.respond(old.awaitingSync, SyncResponse.error(Errors.FENCED_INSTANCE_ID));
        }
        ctx.timers.cancel(ClassicRebalancer.sessionKey(group, oldMemberId));
        boolean wasLeader = group.isLeader(oldMemberId);
        boolean wasPendingSync = group.pendingSyncMembers.contains(oldMemberId);
        ClassicMember member = old.withMemberId(newMemberId);
        member.clientId = r.clientId();
        member.clientHost = r.clientHost();
        member.rebalanceTimeoutMs = r.rebalanceTimeoutMs();
        member.sessionTimeoutMs = r.sessionTimeoutMs();
        member.protocols = r.protocols();
        member.supportsSkipAssignment = r.supportsSkipAssignment();
        group.remove(oldMemberId);
        group.add(member);
        if (wasLeader) {
            group.leaderId = newMemberId;
        }
        if (wasPendingSync) {
            group.pendingSyncMembers.add(newMemberId);
        }
        log.info(
                "Static member {} of group {} rejoined as {} (was {})",
                r.groupInstanceId(),
                group.groupId(),
                newMemberId,
                oldMemberId);
        switch (group.state) {
            case STABLE -> {
                // As Kafka: only a change of the protocol the group would select forces a rebalance. The metadata
                // bytes differ anyway (they carry owned partitions and the generation); a consumer whose
                // subscription changed asks for a rebalance itself once it sees its assignment.
                boolean sameProtocol = group.protocolName != null && group.protocolName.equals(group.selectProtocol());
                if (sameProtocol && (!wasLeader || r.supportsSkipAssignment())) {
                    ctx.outbox.append(GroupRecordSerde.classicGroup(group.groupId(), group.toValue()));
                    rebalancer.scheduleSession(group, member);
                    ctx.outbox.respond(
                            f,
                            new JoinResponse(
                                    Errors.NONE,
                                    group.generationId,
                                    group.protocolType,
                                    group.protocolName,
                                    group.leaderId,
                                    wasLeader,
                                    newMemberId,
                                    wasLeader ? group.joinedMembers() : List.of()));
                } else {
                    member.awaitingJoin = f;
                    rebalancer.prepareRebalance(
                            group,
                            "static member " + r.groupInstanceId() + " rejoined and changes the selected protocol");
                    rebalancer.tryCompleteJoin(group);
                }
            }
            case COMPLETING_REBALANCE -> {
                member.awaitingJoin = f;
                rebalancer.prepareRebalance(
                        group, "static member " + r.groupInstanceId() + " rejoined during the rebalance");
                rebalancer.tryCompleteJoin(group);
            }
            case PREPARING_REBALANCE -> {
                member.awaitingJoin = f;
                rebalancer.tryCompleteJoin(group);
            }
            case EMPTY, DEAD ->
                throw new IllegalStateException("group " + group.groupId() + " in state " + group.state
                        + " has static member " + r.groupInstanceId());
        }
    }

    private static String reasonSuffix(JoinRequest r) {
        return r.reason() == null || r.reason().isEmpty() ? "" : " (" + r.reason() + ")";
    }
}

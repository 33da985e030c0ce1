package io.varve.coordinator.group.share;

import io.varve.coordinator.group.Group;
import io.varve.coordinator.group.GroupOverrides;
import io.varve.coordinator.group.ShardContext;
import io.varve.coordinator.group.Timers;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.assignor.Assignments;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ShareGroupHeartbeat and ShareGroupDescribe on one shard. Pure: the shard's clock, timers and groups map. Each member
 * has a session timer of {@code group.share.session.timeout.ms}, renewed by every heartbeat; a member that misses it
 * leaves the group (its acquired records come back when their locks expire, on the partition leaders).
 */
public final class ShareGroupManager {
    private static final Logger log = LoggerFactory.getLogger(ShareGroupManager.class);

    private final ShardContext ctx;
    private final ShareGroupConfig config;

    public ShareGroupManager(ShardContext ctx, ShareGroupConfig config) {
        this.ctx = ctx;
        this.config = config;
    }

    public ShareGroupConfig config() {
        return config;
    }

    public ShareApi.HeartbeatResponse heartbeat(ShareApi.HeartbeatRequest r, TopicsSnapshot topics) {
        String invalid = invalidMessage(r);
        if (invalid != null) {
            return ShareApi.HeartbeatResponse.error(Errors.INVALID_REQUEST, invalid);
        }
        Group existing = ctx.groups.get(r.groupId());
        if (existing != null && !(existing instanceof ShareGroup)) {
            return ShareApi.HeartbeatResponse.error(
                    Errors.GROUP_ID_NOT_FOUND, "Group " + r.groupId() + " is not a share group.");
        }
        ShareGroup group = (ShareGroup) existing;
        if (r.memberEpoch() == ShareApi.LEAVE_EPOCH) {
            if (group != null && group.members.containsKey(r.memberId())) {
                removeMember(group, r.memberId(), "left", topics);
            }
            return new ShareApi.HeartbeatResponse(Errors.NONE, null, r.memberId(), ShareApi.LEAVE_EPOCH, 0, null);
        }
        ShareGroup.Member member = group == null ? null : group.members.get(r.memberId());
        if (r.memberEpoch() == ShareApi.JOIN_EPOCH) {
            if (member == null) {
                if (group != null && group.members.size() >= config.maxSize()) {
                    return ShareApi.HeartbeatResponse.error(
                            Errors.GROUP_MAX_SIZE_REACHED,
                            "The share group has reached its maximum size of " + config.maxSize() + " members.");
                }
                if (group == null) {
                    group = new ShareGroup(r.groupId());
                    ctx.groups.put(r.groupId(), group);
                    log.info("Created share group {}", r.groupId());
                }
                member = new ShareGroup.Member(r.memberId());
                group.members.put(r.memberId(), member);
                log.info("Member {} joined share group {}", r.memberId(), r.groupId());
            }
        } else if (member == null) {
            return ShareApi.HeartbeatResponse.error(
                    Errors.UNKNOWN_MEMBER_ID,
                    "Member " + r.memberId() + " is not a member of share group " + r.groupId() + ".");
        } else if (r.memberEpoch() != member.memberEpoch) {
            return ShareApi.HeartbeatResponse.error(
                    Errors.FENCED_MEMBER_EPOCH,
                    "Member epoch " + r.memberEpoch() + " is not the current epoch " + member.memberEpoch + ".");
        }
        member.clientId = r.clientId();
        member.clientHost = r.clientHost();
        if (r.rackId() != null) {
            member.rackId = r.rackId();
        }
        boolean changed = r.memberEpoch() == ShareApi.JOIN_EPOCH && member.memberEpoch == 0;
        if (r.subscribedTopicNames() != null && !r.subscribedTopicNames().equals(member.subscribedTopicNames)) {
            member.subscribedTopicNames = List.copyOf(r.subscribedTopicNames());
            changed = true;
        }
        if (changed || group.topics.version() != topics.version()) {
            reassign(group, topics, changed);
        }
        scheduleSession(group, member);
        // a member takes the group's latest assignment with its next heartbeat: no revocation to wait for
        boolean sendAssignment = r.memberEpoch() == ShareApi.JOIN_EPOCH || member.memberEpoch != group.groupEpoch;
        member.memberEpoch = group.groupEpoch;
        member.assignment = group.target.getOrDefault(member.memberId, new HashMap<>());
        return new ShareApi.HeartbeatResponse(
                Errors.NONE,
                null,
                member.memberId,
                member.memberEpoch,
                GroupOverrides.or(
                        ctx.groupConfigs.forGroup(group.groupId()).shareHeartbeatIntervalMs(),
                        config.heartbeatIntervalMs()),
                sendAssignment ? Assignments.copy(member.assignment) : null);
    }

    private static String invalidMessage(ShareApi.HeartbeatRequest r) {
        if (r.groupId() == null || r.groupId().isEmpty()) {
            return "GroupId can't be empty.";
        }
        if (r.memberId() == null || r.memberId().isEmpty()) {
            return "MemberId can't be empty.";
        }
        if (r.memberEpoch() < ShareApi.LEAVE_EPOCH) {
            return "MemberEpoch is invalid.";
        }
        if (r.memberEpoch() == ShareApi.JOIN_EPOCH
                && (r.subscribedTopicNames() == null || r.subscribedTopicNames().isEmpty())) {
            return "SubscribedTopicNames must be set in first request.";
        }
        return null;
    }

    /**
     * Recomputes the target assignment; bumps the group epoch when membership or subscriptions changed or the target
     * differs. Each member moves to it with its next heartbeat, which the old epoch still makes.
     */
    private void reassign(ShareGroup group, TopicsSnapshot topics, boolean membershipChanged) {
        TreeMap<String, List<String>> subscriptions = new TreeMap<>();
        group.members.forEach((id, m) -> subscriptions.put(id, m.subscribedTopicNames));
        Map<String, Map<Uuid, Set<Integer>>> target = SimpleShareAssignor.assign(subscriptions, topics);
        group.topics = topics;
        if (!membershipChanged && Objects.equals(target, group.target)) {
            return;
        }
        group.target = target;
        group.groupEpoch++;
    }

    private void removeMember(ShareGroup group, String memberId, String why, TopicsSnapshot topics) {
        group.members.remove(memberId);
        ctx.timers.cancel(sessionKey(group.groupId(), memberId));
        log.info("Member {} {} share group {}", memberId, why, group.groupId());
        reassign(group, topics, true);
    }

    private void scheduleSession(ShareGroup group, ShareGroup.Member member) {
        String groupId = group.groupId();
        String memberId = member.memberId;
        int timeoutMs = GroupOverrides.or(
                ctx.groupConfigs.forGroup(groupId).shareSessionTimeoutMs(), config.sessionTimeoutMs());
        ctx.timers.schedule(sessionKey(groupId, memberId), ctx.nowMs() + timeoutMs, () -> {
            if (ctx.groups.get(groupId) instanceof ShareGroup g && g.members.containsKey(memberId)) {
                // The topics of the group's last assignment: an expiry has no request bringing fresh ones.
                removeMember(g, memberId, "timed out of", g.topics);
            }
        });
    }

    private static Object sessionKey(String groupId, String memberId) {
        return Timers.key("share-session", groupId, memberId);
    }

    public ShareApi.GroupDescription describe(ShareGroup g, TopicsSnapshot topics) {
        List<ShareApi.DescribedMember> members = new ArrayList<>();
        for (ShareGroup.Member m : g.members.values()) {
            members.add(new ShareApi.DescribedMember(
                    m.memberId,
                    m.rackId,
                    m.memberEpoch,
                    m.clientId,
                    m.clientHost,
                    m.subscribedTopicNames,
                    Assignments.copy(m.assignment)));
        }
        return new ShareApi.GroupDescription(
                g.groupId(),
                Errors.NONE,
                null,
                g.stateName(),
                g.groupEpoch,
                g.groupEpoch,
                SimpleShareAssignor.NAME,
                members);
    }
}

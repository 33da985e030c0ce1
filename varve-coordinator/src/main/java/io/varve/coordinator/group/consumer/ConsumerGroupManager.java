package io.varve.coordinator.group.consumer;

import io.varve.coordinator.group.Group;
import io.varve.coordinator.group.GroupType;
import io.varve.coordinator.group.ShardContext;
import io.varve.coordinator.group.Timers;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.assignor.Assignments;
import io.varve.coordinator.group.assignor.PartitionAssignor;
import io.varve.coordinator.group.classic.ClassicGroup;
import io.varve.coordinator.group.classic.ClassicGroupManager;
import io.varve.coordinator.group.consumer.ConsumerApi.DescribedMember;
import io.varve.coordinator.group.consumer.ConsumerApi.GroupDescription;
import io.varve.coordinator.group.consumer.ConsumerApi.HeartbeatRequest;
import io.varve.coordinator.group.consumer.ConsumerApi.HeartbeatResponse;
import io.varve.coordinator.group.record.ConsumerGroupValue;
import io.varve.coordinator.group.record.ConsumerGroupValue.TopicMetadata;
import io.varve.coordinator.group.record.GroupRecordSerde;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.FencedMemberEpochException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupMaxSizeReachedException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnreleasedInstanceIdException;
import org.apache.kafka.common.errors.UnsupportedAssignorException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ConsumerGroupHeartbeat: joins, heartbeats and leaves of KIP-848 members, the group epoch, target assignments
 * and member reconciliation; session and revocation timeouts fence members. The whole group is written as one
 * record whenever its persisted state changes.
 */
public final class ConsumerGroupManager {
    private static final Logger log = LoggerFactory.getLogger(ConsumerGroupManager.class);

    private final ShardContext ctx;
    private final SubscriptionResolver resolver = new SubscriptionResolver();
    private final GroupConversions conversions;

    public ConsumerGroupManager(ShardContext ctx, ClassicGroupManager classic) {
        this.ctx = ctx;
        this.conversions = new GroupConversions(ctx, this, classic);
    }

    public HeartbeatResponse heartbeat(HeartbeatRequest r, TopicsSnapshot topics) {
        try {
            validate(r);
            if (r.memberEpoch() == ConsumerApi.LEAVE_EPOCH || r.memberEpoch() == ConsumerApi.STATIC_LEAVE_EPOCH) {
                return leave(r);
            }
            return joinOrHeartbeat(r, topics);
        } catch (ApiException e) {
            return HeartbeatResponse.error(Errors.forException(e), e.getMessage());
        }
    }

    private void validate(HeartbeatRequest r) {
        if (r.groupId() == null || r.groupId().isEmpty()) {
            throw new InvalidRequestException("GroupId can't be empty.");
        }
        if (r.instanceId() != null && r.instanceId().isEmpty()) {
            throw new InvalidRequestException("InstanceId can't be empty.");
        }
        if (r.rackId() != null && r.rackId().isEmpty()) {
            throw new InvalidRequestException("RackId can't be empty.");
        }
        boolean memberIdRequired = r.apiVersion() >= 1 || r.memberEpoch() != ConsumerApi.JOIN_EPOCH;
        if (memberIdRequired && (r.memberId() == null || r.memberId().isEmpty())) {
            throw new InvalidRequestException("MemberId can't be empty.");
        }
        if (r.memberEpoch() == ConsumerApi.JOIN_EPOCH) {
            if (r.rebalanceTimeoutMs() == -1) {
                throw new InvalidRequestException("RebalanceTimeoutMs must be provided in first request.");
            }
            if (r.ownedPartitions() == null || !r.ownedPartitions().isEmpty()) {
                throw new InvalidRequestException("TopicPartitions must be empty when (re-)joining.");
            }
            if (r.subscribedTopicNames() == null && r.subscribedTopicRegex() == null) {
                throw new InvalidRequestException(
                        "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
            }
        } else if (r.memberEpoch() == ConsumerApi.STATIC_LEAVE_EPOCH) {
            if (r.instanceId() == null) {
                throw new InvalidRequestException(
                        "InstanceId can't be null when leaving with epoch " + ConsumerApi.STATIC_LEAVE_EPOCH + ".");
            }
        } else if (r.memberEpoch() < ConsumerApi.STATIC_LEAVE_EPOCH) {
            throw new InvalidRequestException("MemberEpoch is invalid.");
        }
        if (r.serverAssignor() != null
                && !ctx.config.consumerAssignors().contains(r.serverAssignor())
                && PartitionAssignor.forName(r.serverAssignor()) == null) {
            throw new UnsupportedAssignorException("ServerAssignor " + r.serverAssignor() + " is not supported. "
                    + "Supported assignors: " + String.join(", ", ctx.config.consumerAssignors()) + ".");
        }
        if (r.subscribedTopicRegex() != null && !r.subscribedTopicRegex().isEmpty()) {
            resolver.compile(r.subscribedTopicRegex());
        }
    }

    private HeartbeatResponse joinOrHeartbeat(HeartbeatRequest r, TopicsSnapshot topics) {
        ConsumerGroup group = getOrCreateGroup(r.groupId(), r.memberEpoch() == ConsumerApi.JOIN_EPOCH, topics);
        boolean dirty = false;
        boolean bump = false;
        ConsumerMember member;
        String memberId = r.memberId() == null || r.memberId().isEmpty() ? ctx.uuids.get() : r.memberId();
        String staticMemberId = group.staticMemberId(r.instanceId());
        if (r.memberEpoch() == ConsumerApi.JOIN_EPOCH) {
            if (staticMemberId != null && !staticMemberId.equals(memberId)) {
                ConsumerMember previous = group.member(staticMemberId);
                if (previous.memberEpoch != ConsumerApi.STATIC_LEAVE_EPOCH) {
                    throw new UnreleasedInstanceIdException("Static member " + r.instanceId() + " of group "
                            + group.groupId() + " is still in use by member " + staticMemberId + ".");
                }
                member = replaceStaticMember(group, previous, memberId);
                dirty = true;
            } else {
                member = group.member(memberId);
                if (member == null) {
                    if (group.members.size() >= ctx.config.consumerMaxSize()) {
                        throw new GroupMaxSizeReachedException("The consumer group has reached its maximum capacity of "
                                + ctx.config.consumerMaxSize() + " members.");
                    }
                    member = new ConsumerMember(memberId);
                    member.instanceId = r.instanceId();
                    group.addMember(member);
                    dirty = true;
                    bump = true;
                    log.info("Member {} joins consumer group {}", memberId, group.groupId());
                }
            }
        } else {
            if (r.instanceId() != null) {
                if (staticMemberId == null) {
                    throw new UnknownMemberIdException(
                            "Instance id " + r.instanceId() + " is unknown in group " + group.groupId() + ".");
                }
                if (!staticMemberId.equals(memberId)) {
                    throw new FencedInstanceIdException("Instance id " + r.instanceId() + " belongs to member "
                            + staticMemberId + ", not " + memberId + ".");
                }
            }
            member = group.member(memberId);
            if (member == null) {
                throw new UnknownMemberIdException(
                        "Member " + memberId + " is not a member of group " + group.groupId() + ".");
            }
            checkEpoch(member, r);
        }

        int epochBefore = member.memberEpoch;
        Map<Uuid, Set<Integer>> assignedBefore = Assignments.copy(member.assigned);
        MemberState stateBefore = member.state;
        if (updateMember(member, r)) {
            dirty = true;
            bump = true;
        }
        Map<String, TopicMetadata> subscribed = subscribedTopics(group, topics);
        if (!subscribed.equals(group.subscribedTopics)) {
            group.subscribedTopics = subscribed;
            dirty = true;
            bump = true;
        }
        if (bump) {
            group.groupEpoch++;
            log.info("Consumer group {} moves to epoch {}", group.groupId(), group.groupEpoch);
        }
        if (group.groupEpoch > group.assignmentEpoch) {
            computeTargetAssignment(group, topics);
            dirty = true;
        }
        MemberReconciler.reconcile(group, member, r.ownedPartitions());
        boolean assignmentChanged = !Assignments.sameAs(assignedBefore, member.assigned);
        if (assignmentChanged || epochBefore != member.memberEpoch || stateBefore != member.state) {
            dirty = true;
        }
        if (dirty) {
            persist(group);
        }
        scheduleSession(group, member);
        scheduleRevocationTimeout(group, member);

        boolean sendAssignment = r.memberEpoch() == ConsumerApi.JOIN_EPOCH
                || assignmentChanged
                || (r.ownedPartitions() != null && !Assignments.sameAs(r.ownedPartitions(), member.assigned));
        return new HeartbeatResponse(
                Errors.NONE,
                null,
                member.memberId,
                member.memberEpoch,
                ctx.consumerHeartbeatIntervalMs(group.groupId()),
                sendAssignment ? Assignments.copy(member.assigned) : null);
    }

    private ConsumerGroup getOrCreateGroup(String groupId, boolean create, TopicsSnapshot topics) {
        Group existing = ctx.groups.get(groupId);
        if (existing instanceof ConsumerGroup g) {
            return g;
        }
        if (existing != null) {
            if (create && !existing.hasNoMembers() && existing instanceof ClassicGroup c) {
                return conversions.upgrade(c, topics);
            }
            if (!create || !existing.hasNoMembers() || existing.type() == GroupType.SHARE) {
                throw new GroupIdNotFoundException("Group " + groupId + " is not a consumer group.");
            }
            log.info(
                    "Empty {} group {} becomes a consumer group",
                    existing.type().displayName(),
                    groupId);
            ctx.outbox.append(
                    existing.type() == io.varve.coordinator.group.GroupType.STREAMS
                            ? GroupRecordSerde.streamsGroup(groupId, null)
                            : GroupRecordSerde.classicGroup(groupId, null));
            ctx.groups.remove(groupId);
        } else if (!create) {
            throw new UnknownMemberIdException("Consumer group " + groupId + " not found.");
        }
        ConsumerGroup g = new ConsumerGroup(groupId);
        ctx.groups.put(groupId, g);
        return g;
    }

    /** Kafka's epoch rule: newer than ours is fenced; older is only fine as the previous epoch with a subset owned. */
    private static void checkEpoch(ConsumerMember m, HeartbeatRequest r) {
        if (r.memberEpoch() > m.memberEpoch) {
            throw new FencedMemberEpochException("The consumer group member has a greater member epoch ("
                    + r.memberEpoch() + ") than the one known by the group coordinator (" + m.memberEpoch
                    + "). The member must abandon all its partitions and rejoin.");
        }
        if (r.memberEpoch() < m.memberEpoch
                && (r.memberEpoch() != m.previousMemberEpoch
                        || r.ownedPartitions() == null
                        || !Assignments.isSubset(r.ownedPartitions(), m.assigned))) {
            throw new FencedMemberEpochException("The consumer group member has a smaller member epoch ("
                    + r.memberEpoch() + ") than the one known by the group coordinator (" + m.memberEpoch
                    + "). The member must abandon all its partitions and rejoin.");
        }
    }

    /** Applies the fields the member sent; true when its subscription changed (a new group epoch). */
    private static boolean updateMember(ConsumerMember m, HeartbeatRequest r) {
        boolean subscriptionChanged = false;
        if (r.rebalanceTimeoutMs() != -1) {
            m.rebalanceTimeoutMs = r.rebalanceTimeoutMs();
        }
        if (r.clientId() != null) {
            m.clientId = r.clientId();
        }
        if (r.clientHost() != null) {
            m.clientHost = r.clientHost();
        }
        if (r.rackId() != null && !r.rackId().equals(m.rackId)) {
            m.rackId = r.rackId();
            subscriptionChanged = true;
        }
        if (r.subscribedTopicNames() != null) {
            List<String> names = List.copyOf(new TreeSet<>(r.subscribedTopicNames()));
            if (!names.equals(m.subscribedTopicNames)) {
                m.subscribedTopicNames = names;
                subscriptionChanged = true;
            }
        }
        if (r.subscribedTopicRegex() != null) {
            String regex = r.subscribedTopicRegex().isEmpty() ? null : r.subscribedTopicRegex();
            if (!java.util.Objects.equals(regex, m.subscribedTopicRegex)) {
                m.subscribedTopicRegex = regex;
                subscriptionChanged = true;
            }
        }
        if (r.serverAssignor() != null && !r.serverAssignor().equals(m.serverAssignor)) {
            m.serverAssignor = r.serverAssignor();
            subscriptionChanged = true;
        }
        return subscriptionChanged;
    }

    /** Every topic some member subscribes to, with its id and partition count as the metadata has them now. */
    Map<String, TopicMetadata> subscribedTopics(ConsumerGroup group, TopicsSnapshot topics) {
        Map<String, TopicMetadata> result = new TreeMap<>();
        for (ConsumerMember m : group.members.values()) {
            for (String name : resolver.resolve(m, topics)) {
                TopicsSnapshot.Topic t = topics.byName(name);
                result.put(name, new TopicMetadata(t.id(), t.numPartitions()));
            }
        }
        return Map.copyOf(result);
    }

    void computeTargetAssignment(ConsumerGroup group, TopicsSnapshot topics) {
        String assignorName = assignorOf(group);
        PartitionAssignor assignor = PartitionAssignor.forName(assignorName);
        List<PartitionAssignor.MemberSpec> specs = new ArrayList<>();
        for (ConsumerMember m : group.members.values()) {
            Set<Uuid> ids = new HashSet<>();
            for (String name : resolver.resolve(m, topics)) {
                TopicMetadata t = group.subscribedTopics.get(name);
                if (t != null) {
                    ids.add(t.topicId());
                }
            }
            specs.add(new PartitionAssignor.MemberSpec(m.memberId, m.instanceId, m.rackId, ids));
        }
        Map<Uuid, Integer> partitions = new HashMap<>();
        group.subscribedTopics.values().forEach(t -> partitions.put(t.topicId(), t.numPartitions()));
        Map<String, Map<Uuid, Set<Integer>>> target = new HashMap<>();
        assignor.assign(new PartitionAssignor.Spec(specs, partitions, group.targetAssignment))
                .forEach((memberId, a) -> target.put(memberId, Assignments.copy(a)));
        group.targetAssignment = target;
        group.assignmentEpoch = group.groupEpoch;
        log.info(
                "Consumer group {} has a new target assignment at epoch {} ({} assignor, {} members)",
                group.groupId(),
                group.assignmentEpoch,
                assignor.name(),
                group.members.size());
    }

    /** The assignor most members ask for (ties: the configured order), else the configured default. */
    public String assignorOf(ConsumerGroup group) {
        Map<String, Integer> votes = new HashMap<>();
        for (ConsumerMember m : group.members.values()) {
            if (m.serverAssignor != null) {
                votes.merge(PartitionAssignor.forName(m.serverAssignor).name(), 1, Integer::sum);
            }
        }
        String best = ctx.config.defaultAssignor();
        int bestVotes = 0;
        for (String name : ctx.config.consumerAssignors()) {
            String canonical = PartitionAssignor.forName(name).name();
            int v = votes.getOrDefault(canonical, 0);
            if (v > bestVotes) {
                best = canonical;
                bestVotes = v;
            }
        }
        for (Map.Entry<String, Integer> e : votes.entrySet()) {
            if (e.getValue() > bestVotes) {
                best = e.getKey();
                bestVotes = e.getValue();
            }
        }
        return PartitionAssignor.forName(best).name();
    }

    ConsumerMember replaceStaticMember(ConsumerGroup group, ConsumerMember previous, String newMemberId) {
        ConsumerMember member = previous.copyAs(newMemberId);
        member.memberEpoch = 0;
        member.previousMemberEpoch = 0;
        Map<Uuid, Set<Integer>> target = group.targetAssignment.get(previous.memberId);
        cancelTimers(group, previous.memberId);
        group.removeMember(previous.memberId);
        group.addMember(member);
        if (target != null) {
            group.targetAssignment.put(newMemberId, target);
        }
        log.info(
                "Static member {} of consumer group {} rejoins as {} (was {})",
                member.instanceId,
                group.groupId(),
                newMemberId,
                previous.memberId);
        return member;
    }

    private HeartbeatResponse leave(HeartbeatRequest r) {
        if (!(ctx.groups.get(r.groupId()) instanceof ConsumerGroup group)) {
            throw new UnknownMemberIdException("Consumer group " + r.groupId() + " not found.");
        }
        String memberId = r.memberId();
        if (r.instanceId() != null) {
            String staticMemberId = group.staticMemberId(r.instanceId());
            if (staticMemberId == null) {
                throw new UnknownMemberIdException(
                        "Instance id " + r.instanceId() + " is unknown in group " + group.groupId() + ".");
            }
            if (!staticMemberId.equals(memberId)) {
                throw new FencedInstanceIdException("Instance id " + r.instanceId() + " belongs to member "
                        + staticMemberId + ", not " + memberId + ".");
            }
        }
        ConsumerMember member = group.member(memberId);
        if (member == null) {
            throw new UnknownMemberIdException(
                    "Member " + memberId + " is not a member of group " + group.groupId() + ".");
        }
        if (r.memberEpoch() == ConsumerApi.STATIC_LEAVE_EPOCH) {
            member.previousMemberEpoch = member.memberEpoch;
            member.memberEpoch = ConsumerApi.STATIC_LEAVE_EPOCH;
            ctx.timers.cancel(revocationKey(group, memberId));
            persist(group);
            log.info(
                    "Static member {} ({}) of consumer group {} left temporarily",
                    member.instanceId,
                    memberId,
                    group.groupId());
        } else {
            removeMember(group, member, "left the group");
        }
        return new HeartbeatResponse(
                Errors.NONE, null, memberId, r.memberEpoch(), ctx.consumerHeartbeatIntervalMs(group.groupId()), null);
    }

    void removeMember(ConsumerGroup group, ConsumerMember member, String reason) {
        cancelTimers(group, member.memberId);
        group.removeMember(member.memberId);
        group.groupEpoch++;
        persist(group);
        log.info(
                "Member {} of consumer group {} {}; group epoch {}",
                member.memberId,
                group.groupId(),
                reason,
                group.groupEpoch);
        conversions.maybeDowngrade(group);
    }

    void persist(ConsumerGroup group) {
        ctx.outbox.append(GroupRecordSerde.consumerGroup(group.groupId(), group.toValue()));
    }

    // ---------------------------------------------------------------- timers

    void scheduleSession(ConsumerGroup group, ConsumerMember member) {
        String memberId = member.memberId;
        int timeoutMs = member.classic != null
                ? member.classic.sessionTimeoutMs()
                : ctx.consumerSessionTimeoutMs(group.groupId());
        ctx.timers.schedule(sessionKey(group, memberId), ctx.nowMs() + timeoutMs, () -> {
            ConsumerMember m = group.member(memberId);
            if (m != null && ctx.groups.get(group.groupId()) == group) {
                removeMember(group, m, "was fenced: no heartbeat within the session timeout");
            }
        });
    }

    /** A member revoking partitions must finish within its rebalance timeout or be fenced. */
    void scheduleRevocationTimeout(ConsumerGroup group, ConsumerMember member) {
        Object key = revocationKey(group, member.memberId);
        if (member.state != MemberState.UNREVOKED_PARTITIONS) {
            ctx.timers.cancel(key);
            return;
        }
        if (ctx.timers.isScheduled(key)) {
            return;
        }
        String memberId = member.memberId;
        int epoch = member.memberEpoch;
        ctx.timers.schedule(key, ctx.nowMs() + member.rebalanceTimeoutMs, () -> {
            ConsumerMember m = group.member(memberId);
            if (m != null
                    && m.state == MemberState.UNREVOKED_PARTITIONS
                    && m.memberEpoch == epoch
                    && ctx.groups.get(group.groupId()) == group) {
                removeMember(group, m, "was fenced: it did not revoke its partitions within the rebalance timeout");
            }
        });
    }

    void cancelTimers(ConsumerGroup group, String memberId) {
        ctx.timers.cancel(sessionKey(group, memberId));
        ctx.timers.cancel(revocationKey(group, memberId));
    }

    private static Object sessionKey(ConsumerGroup g, String memberId) {
        return Timers.key("consumer-session", g.groupId(), memberId);
    }

    private static Object revocationKey(ConsumerGroup g, String memberId) {
        return Timers.key("consumer-revocation", g.groupId(), memberId);
    }

    // ---------------------------------------------------------------- offsets, describe, load

    /** OffsetCommit against a consumer group: from a member at its current epoch, or member-less when empty. */
    public Errors validateOffsetCommit(ConsumerGroup group, int memberEpoch, String memberId) {
        if (memberEpoch < 0 && (memberId == null || memberId.isEmpty()) && group.members.isEmpty()) {
            return Errors.NONE;
        }
        ConsumerMember m = memberId == null ? null : group.member(memberId);
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (m.classic != null) {
            // A classic member commits with its generation, which is its member epoch: a classic client
            // knows no epoch errors (Kafka answers it so).
            return memberEpoch == m.memberEpoch ? Errors.NONE : Errors.ILLEGAL_GENERATION;
        }
        if (memberEpoch > m.memberEpoch) {
            return Errors.FENCED_MEMBER_EPOCH;
        }
        return memberEpoch < m.memberEpoch ? Errors.STALE_MEMBER_EPOCH : Errors.NONE;
    }

    public Errors validateOffsetFetch(ConsumerGroup group, String memberId, int memberEpoch) {
        if (memberEpoch < 0 && memberId == null) {
            return Errors.NONE;
        }
        ConsumerMember m = memberId == null ? null : group.member(memberId);
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return memberEpoch != m.memberEpoch ? Errors.STALE_MEMBER_EPOCH : Errors.NONE;
    }

    /** Topics the members subscribe to, as resolved at the last heartbeat. */
    public Set<String> subscribedTopicNames(ConsumerGroup group) {
        return group.members.isEmpty() ? Set.of() : group.subscribedTopics.keySet();
    }

    public GroupDescription describe(ConsumerGroup group, TopicsSnapshot topics) {
        List<DescribedMember> members = new ArrayList<>();
        for (ConsumerMember m : group.members.values()) {
            members.add(new DescribedMember(
                    m.memberId,
                    m.instanceId,
                    m.rackId,
                    m.memberEpoch,
                    m.clientId,
                    m.clientHost,
                    m.subscribedTopicNames,
                    m.subscribedTopicRegex,
                    Assignments.copy(m.assigned),
                    Assignments.copy(group.targetOf(m.memberId)),
                    m.classic != null));
        }
        return new GroupDescription(
                group.groupId(),
                Errors.NONE,
                null,
                group.stateName(),
                group.groupEpoch,
                group.assignmentEpoch,
                assignorOf(group),
                members);
    }

    /** The topics a member subscribes to, as its names and regex resolve against the topics now. */
    Set<String> resolve(ConsumerMember m, TopicsSnapshot topics) {
        return resolver.resolve(m, topics);
    }

    public ConsumerGroup load(String groupId, ConsumerGroupValue value) {
        return ConsumerGroup.fromValue(groupId, value);
    }

    /** After a load, every member gets a fresh session (and revocation deadline) from now. */
    public void onLoaded(ConsumerGroup group) {
        for (ConsumerMember m : group.members.values()) {
            scheduleSession(group, m);
            scheduleRevocationTimeout(group, m);
        }
    }
}

package io.varve.coordinator.group.streams;

import io.varve.coordinator.group.Group;
import io.varve.coordinator.group.GroupOverrides;
import io.varve.coordinator.group.ShardContext;
import io.varve.coordinator.group.Timers;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.record.GroupRecordSerde;
import io.varve.coordinator.group.record.StreamsGroupValue;
import io.varve.coordinator.group.streams.StreamsApi.HeartbeatRequest;
import io.varve.coordinator.group.streams.StreamsApi.HeartbeatResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.FencedMemberEpochException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupMaxSizeReachedException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.StreamsInvalidTopologyEpochException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnreleasedInstanceIdException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * StreamsGroupHeartbeat: joins, heartbeats and leaves of KIP-1071 members; the topology, its resolution against
 * the topics, the group epoch, the target assignment and each member's reconciliation; session and revocation
 * timeouts fence members. The whole group is written as one record whenever its persisted state changes.
 */
public final class StreamsGroupManager {
    private static final Logger log = LoggerFactory.getLogger(StreamsGroupManager.class);

    private final ShardContext ctx;
    private final StreamsGroupConfig config;

    public StreamsGroupManager(ShardContext ctx, StreamsGroupConfig config) {
        this.ctx = ctx;
        this.config = config;
    }

    public HeartbeatResponse heartbeat(HeartbeatRequest r, TopicsSnapshot topics) {
        try {
            validate(r);
            if (r.memberEpoch() == StreamsApi.LEAVE_EPOCH || r.memberEpoch() == StreamsApi.STATIC_LEAVE_EPOCH) {
                return leave(r);
            }
            return joinOrHeartbeat(r, topics);
        } catch (ApiException e) {
            return HeartbeatResponse.error(Errors.forException(e), e.getMessage());
        }
    }

    private static void validate(HeartbeatRequest r) {
        if (r.groupId() == null || r.groupId().isEmpty()) {
            throw new InvalidRequestException("GroupId can't be empty.");
        }
        if (r.memberId() == null || r.memberId().isEmpty()) {
            throw new InvalidRequestException("MemberId can't be empty.");
        }
        if (r.instanceId() != null && r.instanceId().isEmpty()) {
            throw new InvalidRequestException("InstanceId can't be empty.");
        }
        if (r.rackId() != null && r.rackId().isEmpty()) {
            throw new InvalidRequestException("RackId can't be empty.");
        }
        if (r.memberEpoch() == StreamsApi.JOIN_EPOCH) {
            if (r.rebalanceTimeoutMs() == -1) {
                throw new InvalidRequestException("RebalanceTimeoutMs must be provided in first request.");
            }
            if (r.topology() == null) {
                throw new InvalidRequestException("Topology must be non-null when (re-)joining.");
            }
            if (r.processId() == null || r.processId().isEmpty()) {
                throw new InvalidRequestException("ProcessId can't be empty when (re-)joining.");
            }
            if (nonEmpty(r.activeTasks()) || nonEmpty(r.standbyTasks()) || nonEmpty(r.warmupTasks())) {
                throw new InvalidRequestException(
                        "ActiveTasks, StandbyTasks and WarmupTasks must be empty when " + "(re-)joining.");
            }
            TopologyResolver.validate(r.topology());
        } else if (r.memberEpoch() == StreamsApi.STATIC_LEAVE_EPOCH) {
            if (r.instanceId() == null) {
                throw new InvalidRequestException("InstanceId can't be null when leaving with epoch -2.");
            }
        } else if (r.memberEpoch() < StreamsApi.STATIC_LEAVE_EPOCH) {
            throw new InvalidRequestException("MemberEpoch is invalid.");
        }
    }

    private static boolean nonEmpty(Map<String, Set<Integer>> tasks) {
        return tasks != null && TaskIds.count(tasks) > 0;
    }

    private HeartbeatResponse joinOrHeartbeat(HeartbeatRequest r, TopicsSnapshot topics) {
        boolean join = r.memberEpoch() == StreamsApi.JOIN_EPOCH;
        StreamsGroup group = getOrCreateGroup(r.groupId(), join);
        boolean dirty = false;
        boolean bump = false;
        StreamsMember member;
        boolean wasEmpty = group.members.isEmpty();
        String staticMemberId = group.staticMemberId(r.instanceId());
        if (join) {
            if (staticMemberId != null && !staticMemberId.equals(r.memberId())) {
                StreamsMember previous = group.member(staticMemberId);
                if (previous.memberEpoch != StreamsApi.STATIC_LEAVE_EPOCH) {
                    throw new UnreleasedInstanceIdException("Static member " + r.instanceId() + " of group "
                            + group.groupId() + " is still in use by member " + staticMemberId + ".");
                }
                member = replaceStaticMember(group, previous, r.memberId());
                dirty = true;
            } else {
                member = group.member(r.memberId());
                if (member == null) {
                    if (group.members.size() >= config.maxSize()) {
                        throw new GroupMaxSizeReachedException("The streams group has reached its maximum capacity of "
                                + config.maxSize() + " members.");
                    }
                    member = new StreamsMember(r.memberId());
                    member.instanceId = r.instanceId();
                    group.addMember(member);
                    dirty = true;
                    bump = true;
                    log.info("Member {} joins streams group {}", r.memberId(), group.groupId());
                }
            }
            if (updateTopology(group, r.topology())) {
                dirty = true;
                bump = true;
            }
        } else {
            if (r.instanceId() != null) {
                if (staticMemberId == null) {
                    throw new UnknownMemberIdException(
                            "Instance id " + r.instanceId() + " is unknown in group " + group.groupId() + ".");
                }
                if (!staticMemberId.equals(r.memberId())) {
                    throw new FencedInstanceIdException("Instance id " + r.instanceId() + " belongs to member "
                            + staticMemberId + ", not " + r.memberId() + ".");
                }
            }
            member = group.member(r.memberId());
            if (member == null) {
                throw new UnknownMemberIdException(
                        "Member " + r.memberId() + " is not a member of group " + group.groupId() + ".");
            }
            checkEpoch(member, r);
        }

        int epochBefore = member.memberEpoch;
        TasksTuple assignedBefore = member.assigned;
        StreamsMemberState stateBefore = member.state;
        StreamsGroupValue.Endpoint endpointBefore = member.userEndpoint;
        if (updateMember(member, r)) {
            dirty = true;
            bump = true;
        }
        refreshTopology(group, topics);
        if (group.configured.metadataHash() != group.metadataHash) {
            group.metadataHash = group.configured.metadataHash();
            dirty = true;
            bump = true;
        }
        if (bump && wasEmpty && config.initialRebalanceDelayMs() > 0 && !ctx.timers.isScheduled(delayKey(group))) {
            startAssignmentDelay(group);
        } else if (bump) {
            group.groupEpoch++;
            log.info("Streams group {} moves to epoch {}", group.groupId(), group.groupEpoch);
        }
        if (group.groupEpoch > group.assignmentEpoch && !ctx.timers.isScheduled(delayKey(group))) {
            computeTargetAssignment(group);
            dirty = true;
        }
        StreamsReconciler.reconcile(group, member, r.activeTasks());
        boolean assignmentChanged = !member.assigned.equals(assignedBefore);
        if (assignmentChanged || !Objects.equals(endpointBefore, member.userEndpoint) || bump) {
            group.endpointInformationEpoch++;
            dirty = true;
        }
        if (epochBefore != member.memberEpoch || stateBefore != member.state) {
            dirty = true;
        }
        if (r.shutdownApplication() && !group.shutdownRequested) {
            group.shutdownRequested = true;
            log.info("Member {} asks every member of streams group {} to shut down", member.memberId, group.groupId());
        }
        if (dirty) {
            persist(group);
        }
        scheduleSession(group, member);
        scheduleRevocationTimeout(group, member);

        boolean sendAssignment = join
                || assignmentChanged
                || (r.activeTasks() != null && !TaskIds.sameAs(r.activeTasks(), member.assigned.active()))
                || (r.standbyTasks() != null && !TaskIds.sameAs(r.standbyTasks(), member.assigned.standby()))
                || (r.warmupTasks() != null && !TaskIds.sameAs(r.warmupTasks(), member.assigned.warmup()));
        boolean sendEndpoints =
                member.userEndpoint != null && r.endpointInformationEpoch() < group.endpointInformationEpoch;
        return new HeartbeatResponse(
                Errors.NONE,
                null,
                member.memberId,
                member.memberEpoch,
                heartbeatIntervalMs(group),
                statuses(group, member),
                sendAssignment ? member.assigned : null,
                group.endpointInformationEpoch,
                sendEndpoints ? endpoints(group, topics) : null,
                group.configured.topicsToCreate());
    }

    private StreamsGroup getOrCreateGroup(String groupId, boolean create) {
        Group existing = ctx.groups.get(groupId);
        if (existing instanceof StreamsGroup g) {
            return g;
        }
        if (existing != null) {
            if (!create || !existing.hasNoMembers()) {
                throw new GroupIdNotFoundException("Group " + groupId + " is not a streams group.");
            }
            // Kafka's offline migration: an empty group of another kind becomes a streams group, offsets kept.
            log.info(
                    "Empty {} group {} becomes a streams group", existing.type().displayName(), groupId);
            ctx.outbox.append(
                    existing.type() == io.varve.coordinator.group.GroupType.CLASSIC
                            ? GroupRecordSerde.classicGroup(groupId, null)
                            : GroupRecordSerde.consumerGroup(groupId, null));
            ctx.groups.remove(groupId);
        } else if (!create) {
            throw new GroupIdNotFoundException("Streams group " + groupId + " not found.");
        }
        StreamsGroup g = new StreamsGroup(groupId);
        ctx.groups.put(groupId, g);
        return g;
    }

    /**
     * The first member's topology becomes the group's; a newer epoch replaces it; the same epoch must bring the same
     * topology (STREAMS_INVALID_TOPOLOGY_EPOCH). An older epoch is kept out and reported as STALE_TOPOLOGY.
     */
    private static boolean updateTopology(StreamsGroup group, StreamsGroupValue.Topology topology) {
        if (group.topology == null || topology.epoch() > group.topology.epoch()) {
            if (group.topology != null) {
                log.info(
                        "Streams group {} moves to topology epoch {} (was {})",
                        group.groupId(),
                        topology.epoch(),
                        group.topology.epoch());
            }
            group.topology = topology;
            group.configuredTopicsVersion = Long.MIN_VALUE;
            return true;
        }
        if (topology.epoch() == group.topology.epoch() && !topology.equals(group.topology)) {
            throw new StreamsInvalidTopologyEpochException("Topology epoch " + topology.epoch()
                    + " of the member describes a different topology than the group's at the same epoch.");
        }
        return false;
    }

    /** Resolves the topology again when the topics changed since the last resolution. */
    void refreshTopology(StreamsGroup group, TopicsSnapshot topics) {
        if (group.topology != null && group.configuredTopicsVersion != topics.version()) {
            group.configured = TopologyResolver.resolve(group.topology, topics);
            group.configuredTopicsVersion = topics.version();
        }
    }

    private static void checkEpoch(StreamsMember m, HeartbeatRequest r) {
        if (r.memberEpoch() > m.memberEpoch) {
            throw new FencedMemberEpochException("The streams group member has a greater member epoch ("
                    + r.memberEpoch() + ") than the one known by the group coordinator (" + m.memberEpoch
                    + "). The member must abandon all its tasks and rejoin.");
        }
        if (r.memberEpoch() < m.memberEpoch
                && (r.memberEpoch() != m.previousMemberEpoch
                        || r.activeTasks() == null
                        || !TaskIds.isSubset(r.activeTasks(), m.assigned.active()))) {
            throw new FencedMemberEpochException("The streams group member has a smaller member epoch ("
                    + r.memberEpoch() + ") than the one known by the group coordinator (" + m.memberEpoch
                    + "). The member must abandon all its tasks and rejoin.");
        }
    }

    /** Applies the fields the member sent; true when one that shapes the assignment changed (a new group epoch). */
    private static boolean updateMember(StreamsMember m, HeartbeatRequest r) {
        boolean changed = false;
        if (r.rebalanceTimeoutMs() != -1) {
            m.rebalanceTimeoutMs = r.rebalanceTimeoutMs();
        }
        if (r.clientId() != null) {
            m.clientId = r.clientId();
        }
        if (r.clientHost() != null) {
            m.clientHost = r.clientHost();
        }
        if (r.topology() != null && r.topology().epoch() != m.topologyEpoch) {
            m.topologyEpoch = r.topology().epoch();
            changed = true;
        }
        if (r.rackId() != null && !r.rackId().equals(m.rackId)) {
            m.rackId = r.rackId();
            changed = true;
        }
        if (r.processId() != null && !r.processId().equals(m.processId)) {
            m.processId = r.processId();
            changed = true;
        }
        if (r.clientTags() != null && !r.clientTags().equals(m.clientTags)) {
            m.clientTags = Map.copyOf(r.clientTags());
            changed = true;
        }
        if (r.userEndpoint() != null) {
            m.userEndpoint = r.userEndpoint();
        }
        return changed;
    }

    private void computeTargetAssignment(StreamsGroup group) {
        List<StickyTaskAssignor.MemberSpec> specs = new ArrayList<>();
        for (StreamsMember m : group.members.values()) {
            specs.add(new StickyTaskAssignor.MemberSpec(m.memberId, m.processId));
        }
        group.targetAssignment = new java.util.HashMap<>(StickyTaskAssignor.assign(
                specs,
                group.configured.numTasks(),
                group.targetAssignment,
                GroupOverrides.or(
                        ctx.groupConfigs.forGroup(group.groupId()).streamsNumStandbyReplicas(),
                        config.numStandbyReplicas())));
        group.assignmentEpoch = group.groupEpoch;
        log.info(
                "Streams group {} has a new target assignment at epoch {} ({} tasks, {} members{})",
                group.groupId(),
                group.assignmentEpoch,
                group.configured.numTasks().values().stream()
                        .mapToInt(Integer::intValue)
                        .sum(),
                group.members.size(),
                group.configured.ready() ? "" : "; topology not ready: no tasks");
    }

    /**
     * An empty group gets its first members: as Kafka does, the epoch moves by two, an empty target is set at the
     * first of them (so the members have a non-zero epoch to heartbeat with), and the real assignment waits for
     * {@code group.streams.initial.rebalance.delay.ms}, so that the first member does not get every task only to
     * revoke most of them a moment later.
     */
    private void startAssignmentDelay(StreamsGroup group) {
        group.groupEpoch += 2;
        group.targetAssignment = new java.util.HashMap<>();
        group.assignmentEpoch = group.groupEpoch - 1;
        log.info(
                "Streams group {} moves to epoch {}; its assignment waits {} ms for more members",
                group.groupId(),
                group.groupEpoch,
                config.initialRebalanceDelayMs());
        ctx.timers.schedule(delayKey(group), ctx.nowMs() + config.initialRebalanceDelayMs(), () -> {
            if (ctx.groups.get(group.groupId()) == group && group.groupEpoch > group.assignmentEpoch) {
                computeTargetAssignment(group);
                persist(group);
            }
        });
    }

    private static Object delayKey(StreamsGroup g) {
        return Timers.key("streams-assignment-delay", g.groupId());
    }

    private List<StreamsApi.Status> statuses(StreamsGroup group, StreamsMember member) {
        List<StreamsApi.Status> out = new ArrayList<>(group.configured.statuses());
        if (ctx.timers.isScheduled(delayKey(group))) {
            out.add(new StreamsApi.Status(
                    StreamsApi.ASSIGNMENT_DELAYED,
                    "The assignment is delayed by group.streams.initial.rebalance.delay.ms for more members to join."));
        }
        if (group.topology != null && member.topologyEpoch < group.topology.epoch()) {
            out.add(new StreamsApi.Status(
                    StreamsApi.STALE_TOPOLOGY,
                    "The member's topology epoch " + member.topologyEpoch + " is older than the group's "
                            + group.topology.epoch() + "."));
        }
        if (group.shutdownRequested) {
            out.add(new StreamsApi.Status(
                    StreamsApi.SHUTDOWN_APPLICATION, "A member requested the shutdown of the whole application."));
        }
        return out;
    }

    /** For interactive queries: each member with an endpoint and the source partitions of its current tasks. */
    private static List<StreamsApi.EndpointPartitions> endpoints(StreamsGroup group, TopicsSnapshot topics) {
        List<StreamsApi.EndpointPartitions> out = new ArrayList<>();
        for (StreamsMember m : group.members.values()) {
            if (m.userEndpoint == null) {
                continue;
            }
            Map<String, Set<Integer>> standbys = TaskIds.copy(m.assigned.standby());
            m.assigned.warmup().forEach((s, ps) -> ps.forEach(p -> TaskIds.add(standbys, s, p)));
            out.add(new StreamsApi.EndpointPartitions(
                    m.userEndpoint,
                    partitionsOf(group, m.assigned.active(), topics),
                    partitionsOf(group, standbys, topics)));
        }
        return out;
    }

    private static Map<String, Set<Integer>> partitionsOf(
            StreamsGroup group, Map<String, Set<Integer>> tasks, TopicsSnapshot topics) {
        Map<String, Set<Integer>> byTopic = TaskIds.mutable();
        tasks.forEach((sub, ps) -> {
            for (String topic : group.configured.sourceTopics().getOrDefault(sub, List.of())) {
                TopicsSnapshot.Topic t = topics.byName(topic);
                for (int p : ps) {
                    if (t != null && p < t.numPartitions()) {
                        TaskIds.add(byTopic, topic, p);
                    }
                }
            }
        });
        return byTopic;
    }

    private StreamsMember replaceStaticMember(StreamsGroup group, StreamsMember previous, String newMemberId) {
        StreamsMember member = previous.copyAs(newMemberId);
        member.memberEpoch = 0;
        member.previousMemberEpoch = 0;
        TasksTuple target = group.targetAssignment.get(previous.memberId);
        cancelTimers(group, previous.memberId);
        group.removeMember(previous.memberId);
        group.addMember(member);
        if (target != null) {
            group.targetAssignment.put(newMemberId, target);
        }
        log.info(
                "Static member {} of streams group {} rejoins as {} (was {})",
                member.instanceId,
                group.groupId(),
                newMemberId,
                previous.memberId);
        return member;
    }

    private HeartbeatResponse leave(HeartbeatRequest r) {
        if (!(ctx.groups.get(r.groupId()) instanceof StreamsGroup group)) {
            throw new GroupIdNotFoundException("Streams group " + r.groupId() + " not found.");
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
        StreamsMember member = group.member(memberId);
        if (member == null) {
            throw new UnknownMemberIdException(
                    "Member " + memberId + " is not a member of group " + group.groupId() + ".");
        }
        if (r.memberEpoch() == StreamsApi.STATIC_LEAVE_EPOCH) {
            member.previousMemberEpoch = member.memberEpoch;
            member.memberEpoch = StreamsApi.STATIC_LEAVE_EPOCH;
            ctx.timers.cancel(revocationKey(group, memberId));
            persist(group);
            log.info(
                    "Static member {} ({}) of streams group {} left temporarily",
                    member.instanceId,
                    memberId,
                    group.groupId());
        } else {
            removeMember(group, member, "left the group");
        }
        return new HeartbeatResponse(
                Errors.NONE,
                null,
                memberId,
                r.memberEpoch(),
                heartbeatIntervalMs(group),
                List.of(),
                null,
                group.endpointInformationEpoch,
                null,
                List.of());
    }

    private void removeMember(StreamsGroup group, StreamsMember member, String reason) {
        cancelTimers(group, member.memberId);
        group.removeMember(member.memberId);
        group.groupEpoch++;
        group.endpointInformationEpoch++;
        persist(group);
        log.info(
                "Member {} of streams group {} {}; group epoch {}",
                member.memberId,
                group.groupId(),
                reason,
                group.groupEpoch);
    }

    private void persist(StreamsGroup group) {
        ctx.outbox.append(GroupRecordSerde.streamsGroup(group.groupId(), group.toValue()));
    }

    /** The group's own streams.heartbeat.interval.ms, else the broker-wide one. */
    private int heartbeatIntervalMs(StreamsGroup group) {
        return GroupOverrides.or(
                ctx.groupConfigs.forGroup(group.groupId()).streamsHeartbeatIntervalMs(), config.heartbeatIntervalMs());
    }

    // ---------------------------------------------------------------- timers

    private void scheduleSession(StreamsGroup group, StreamsMember member) {
        String memberId = member.memberId;
        int timeoutMs = GroupOverrides.or(
                ctx.groupConfigs.forGroup(group.groupId()).streamsSessionTimeoutMs(), config.sessionTimeoutMs());
        ctx.timers.schedule(sessionKey(group, memberId), ctx.nowMs() + timeoutMs, () -> {
            StreamsMember m = group.member(memberId);
            if (m != null && ctx.groups.get(group.groupId()) == group) {
                removeMember(group, m, "was fenced: no heartbeat within the session timeout");
            }
        });
    }

    /** A member revoking active tasks must finish within its rebalance timeout or be fenced. */
    private void scheduleRevocationTimeout(StreamsGroup group, StreamsMember member) {
        Object key = revocationKey(group, member.memberId);
        if (member.state != StreamsMemberState.UNREVOKED_TASKS) {
            ctx.timers.cancel(key);
            return;
        }
        if (ctx.timers.isScheduled(key)) {
            return;
        }
        String memberId = member.memberId;
        int epoch = member.memberEpoch;
        ctx.timers.schedule(key, ctx.nowMs() + member.rebalanceTimeoutMs, () -> {
            StreamsMember m = group.member(memberId);
            if (m != null
                    && m.state == StreamsMemberState.UNREVOKED_TASKS
                    && m.memberEpoch == epoch
                    && ctx.groups.get(group.groupId()) == group) {
                removeMember(group, m, "was fenced: it did not revoke its tasks within the rebalance timeout");
            }
        });
    }

    private void cancelTimers(StreamsGroup group, String memberId) {
        ctx.timers.cancel(sessionKey(group, memberId));
        ctx.timers.cancel(revocationKey(group, memberId));
    }

    private static Object sessionKey(StreamsGroup g, String memberId) {
        return Timers.key("streams-session", g.groupId(), memberId);
    }

    private static Object revocationKey(StreamsGroup g, String memberId) {
        return Timers.key("streams-revocation", g.groupId(), memberId);
    }

    // ---------------------------------------------------------------- offsets, describe, load

    /** OffsetCommit and TxnOffsetCommit against a streams group: from a member at its current epoch. */
    public Errors validateOffsetCommit(StreamsGroup group, int memberEpoch, String memberId) {
        if (memberEpoch < 0 && (memberId == null || memberId.isEmpty()) && group.members.isEmpty()) {
            return Errors.NONE;
        }
        StreamsMember m = memberId == null ? null : group.member(memberId);
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (memberEpoch > m.memberEpoch) {
            return Errors.FENCED_MEMBER_EPOCH;
        }
        return memberEpoch < m.memberEpoch ? Errors.STALE_MEMBER_EPOCH : Errors.NONE;
    }

    public Errors validateOffsetFetch(StreamsGroup group, String memberId, int memberEpoch) {
        if (memberEpoch < 0 && memberId == null) {
            return Errors.NONE;
        }
        StreamsMember m = memberId == null ? null : group.member(memberId);
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return memberEpoch != m.memberEpoch ? Errors.STALE_MEMBER_EPOCH : Errors.NONE;
    }

    public StreamsApi.GroupDescription describe(StreamsGroup group, TopicsSnapshot topics) {
        refreshTopology(group, topics);
        List<StreamsApi.DescribedMember> members = new ArrayList<>();
        for (StreamsMember m : group.members.values()) {
            members.add(new StreamsApi.DescribedMember(
                    m.memberId,
                    m.memberEpoch,
                    m.instanceId,
                    m.rackId,
                    m.clientId,
                    m.clientHost,
                    m.topologyEpoch,
                    m.processId,
                    m.userEndpoint,
                    m.clientTags,
                    m.assigned,
                    group.targetOf(m.memberId)));
        }
        return new StreamsApi.GroupDescription(
                group.groupId(),
                Errors.NONE,
                null,
                group.stateName(),
                group.groupEpoch,
                group.assignmentEpoch,
                group.topology,
                group.configured.ready() ? group.configured.sourceTopics() : null,
                members);
    }

    public StreamsGroup load(String groupId, StreamsGroupValue value) {
        return StreamsGroup.fromValue(groupId, value);
    }

    /** After a load, every member gets a fresh session (and revocation deadline) from now. */
    public void onLoaded(StreamsGroup group) {
        for (StreamsMember m : group.members.values()) {
            scheduleSession(group, m);
            scheduleRevocationTimeout(group, m);
        }
    }
}

package io.varve.coordinator.group.consumer;

import io.varve.coordinator.group.ShardContext;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.assignor.Assignments;
import io.varve.coordinator.group.classic.ClassicGroup;
import io.varve.coordinator.group.classic.ClassicGroupManager;
import io.varve.coordinator.group.classic.ClassicGroupState;
import io.varve.coordinator.group.classic.ClassicMember;
import io.varve.coordinator.group.classic.ClassicProtocol;
import io.varve.coordinator.group.record.ClassicGroupValue;
import io.varve.coordinator.group.record.GroupRecordSerde;
import io.varve.coordinator.wire.ConsumerProtocolAssignments;
import io.varve.coordinator.wire.ConsumerProtocolSubscriptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Online migration between the group protocols (KIP-848's upgrade and downgrade), as
 * {@code group.consumer.migration.policy} allows. Upgrade: the first member joining a non-empty classic group with
 * the consumer protocol turns it into a consumer group whose classic members keep their generation as their epoch
 * and their partitions as their assignment. Downgrade: when the last consumer-protocol member of a consumer group
 * leaves, the classic members left become a classic group again, and rebalance. Each conversion writes the old
 * group's tombstone and the new group's record, so a coordinator that loads the partition sees the new group.
 */
final class GroupConversions {
    private static final Logger log = LoggerFactory.getLogger(GroupConversions.class);

    private final ShardContext ctx;
    private final ConsumerGroupManager consumer;
    private final ClassicGroupManager classic;

    GroupConversions(ShardContext ctx, ConsumerGroupManager consumer, ClassicGroupManager classic) {
        this.ctx = ctx;
        this.consumer = consumer;
        this.classic = classic;
    }

    /**
     * The consumer group a non-empty classic group becomes, or GROUP_ID_NOT_FOUND when it cannot (Kafka's answer:
     * the policy forbids it, the group is not a consumer-protocol group, or it is full). A group in the middle of a
     * rebalance is not converted yet: COORDINATOR_LOAD_IN_PROGRESS, which the joining consumer retries.
     */
    ConsumerGroup upgrade(ClassicGroup c, TopicsSnapshot topics) {
        String groupId = c.groupId();
        if (!ctx.config.migrationPolicy().allowsUpgrade()) {
            throw new GroupIdNotFoundException("Group " + groupId + " is a classic group and "
                    + "group.consumer.migration.policy=" + ctx.config.migrationPolicy() + " does not allow upgrades.");
        }
        if (!ClassicMembers.CONSUMER_PROTOCOL_TYPE.equals(c.protocolType())) {
            throw new GroupIdNotFoundException("Group " + groupId + " is a classic group of protocol type '"
                    + c.protocolType() + "', which cannot become a consumer group.");
        }
        if (c.members().size() >= ctx.config.consumerMaxSize()) {
            throw new GroupIdNotFoundException("Group " + groupId + " cannot become a consumer group: it has "
                    + c.members().size() + " members and group.consumer.max.size is " + ctx.config.consumerMaxSize()
                    + ".");
        }
        if (c.state() != ClassicGroupState.STABLE) {
            throw new CoordinatorLoadInProgressException(
                    "Classic group " + groupId + " is rebalancing; it becomes a consumer group once stable.");
        }
        ConsumerGroup g = new ConsumerGroup(groupId);
        g.groupEpoch = c.generationId();
        g.assignmentEpoch = c.generationId();
        Map<Uuid, Map<Integer, String>> claimed = new HashMap<>();
        for (ClassicMember cm : c.members()) {
            ConsumerProtocolSubscriptions.Subscription sub =
                    ConsumerProtocolSubscriptions.decode(cm.metadata(c.protocolName()));
            Map<String, Set<Integer>> owned = ConsumerProtocolAssignments.decode(cm.assignment());
            if (sub == null || owned == null) {
                throw new GroupIdNotFoundException("Group " + groupId + " cannot become a consumer group: member "
                        + cm.memberId() + " sent a subscription or got an assignment that is not the consumer's.");
            }
            ConsumerMember m = new ConsumerMember(cm.memberId());
            m.instanceId = cm.groupInstanceId();
            m.rackId = sub.rackId();
            m.clientId = cm.clientId();
            m.clientHost = cm.clientHost();
            m.rebalanceTimeoutMs = cm.rebalanceTimeoutMs();
            m.subscribedTopicNames = List.copyOf(sub.topics());
            m.memberEpoch = c.generationId();
            m.previousMemberEpoch = c.generationId();
            m.classic = new ClassicMetadata(cm.sessionTimeoutMs(), cm.protocols());
            Map<Uuid, Set<Integer>> assigned = byId(owned, topics);
            for (Map.Entry<Uuid, Set<Integer>> e : assigned.entrySet()) {
                for (int p : e.getValue()) {
                    String other = claimed.computeIfAbsent(e.getKey(), t -> new HashMap<>())
                            .putIfAbsent(p, cm.memberId());
                    if (other != null) {
                        throw new GroupIdNotFoundException("Group " + groupId + " cannot become a consumer group: "
                                + "members " + other + " and " + cm.memberId() + " were assigned the same partition.");
                    }
                }
            }
            m.assigned = assigned;
            g.addMember(m);
            g.targetAssignment.put(m.memberId, Assignments.copy(assigned));
        }
        g.subscribedTopics = consumer.subscribedTopics(g, topics);
        classic.retire(c);
        ctx.outbox.append(GroupRecordSerde.classicGroup(groupId, null));
        ctx.groups.put(groupId, g);
        consumer.persist(g);
        for (ConsumerMember m : g.members.values()) {
            consumer.scheduleSession(g, m);
        }
        log.info(
                "Classic group {} becomes a consumer group at epoch {} with its {} classic members (online upgrade)",
                groupId,
                g.groupEpoch,
                g.members.size());
        return g;
    }

    /**
     * After a member left: when every member left speaks the classic protocol and the policy allows it, the
     * group becomes a classic group at its members' generation and starts a rebalance.
     */
    void maybeDowngrade(ConsumerGroup g) {
        if (g.members.isEmpty()
                || !ctx.config.migrationPolicy().allowsDowngrade()
                || g.members.size() > ctx.config.classicMaxSize()
                || ctx.groups.get(g.groupId()) != g) {
            return;
        }
        for (ConsumerMember m : g.members.values()) {
            if (m.classic == null) {
                return;
            }
        }
        String protocolName = commonProtocol(g);
        if (protocolName == null) {
            log.info("Consumer group {} stays a consumer group: its classic members share no protocol", g.groupId());
            return;
        }
        // Members reconciled to the last target share its epoch; the classic group takes the highest epoch, so a
        // member at it heartbeats into the rebalance rather than being told its generation is unknown.
        int generation = 0;
        for (ConsumerMember m : g.members.values()) {
            generation = Math.max(generation, m.memberEpoch);
        }
        TopicsById names = new TopicsById(g);
        List<ClassicGroupValue.Member> members = new ArrayList<>();
        for (ConsumerMember m : g.members.values()) {
            members.add(new ClassicGroupValue.Member(
                    m.memberId,
                    m.instanceId,
                    m.clientId,
                    m.clientHost,
                    m.rebalanceTimeoutMs,
                    m.classic.sessionTimeoutMs(),
                    m.classic.metadata(protocolName),
                    ConsumerProtocolAssignments.encode(names.byName(m.assigned))));
            consumer.cancelTimers(g, m.memberId);
        }
        String leader = g.members.firstKey();
        ClassicGroupValue value = new ClassicGroupValue(
                ClassicMembers.CONSUMER_PROTOCOL_TYPE, generation, protocolName, leader, ctx.nowMs(), members, true);
        ctx.outbox.append(GroupRecordSerde.consumerGroup(g.groupId(), null));
        ctx.outbox.append(GroupRecordSerde.classicGroup(g.groupId(), value));
        ctx.groups.remove(g.groupId());
        classic.adopt(g.groupId(), value);
        log.info(
                "Consumer group {} becomes a classic group at generation {} with {} members (online downgrade)",
                g.groupId(),
                generation,
                members.size());
    }

    /** The first member's most preferred protocol that every member offers, or null. */
    private static String commonProtocol(ConsumerGroup g) {
        ConsumerMember first = g.members.firstEntry().getValue();
        for (ClassicProtocol p : first.classic.protocols()) {
            boolean everyone = true;
            for (ConsumerMember m : g.members.values()) {
                if (m.classic.metadata(p.name()) == null) {
                    everyone = false;
                    break;
                }
            }
            if (everyone) {
                return p.name();
            }
        }
        return null;
    }

    /** Partitions by topic name to partitions by topic id; topics the cluster no longer has are left out. */
    static Map<Uuid, Set<Integer>> byId(Map<String, Set<Integer>> byName, TopicsSnapshot topics) {
        Map<Uuid, Set<Integer>> out = Assignments.mutable();
        byName.forEach((name, ps) -> {
            TopicsSnapshot.Topic t = topics.byName(name);
            if (t != null) {
                ps.forEach(p -> Assignments.add(out, t.id(), p));
            }
        });
        return out;
    }

    /** Names of the topics a group's assignments use, from the topic metadata the group keeps. */
    static final class TopicsById {
        private final Map<Uuid, String> names = new HashMap<>();

        TopicsById(ConsumerGroup g) {
            g.subscribedTopics.forEach((name, t) -> names.put(t.topicId(), name));
        }

        Map<String, Set<Integer>> byName(Map<Uuid, Set<Integer>> byId) {
            Map<String, Set<Integer>> out = new TreeMap<>();
            byId.forEach((id, ps) -> {
                String name = names.get(id);
                if (name != null && !ps.isEmpty()) {
                    out.put(name, ps);
                }
            });
            return out;
        }
    }
}

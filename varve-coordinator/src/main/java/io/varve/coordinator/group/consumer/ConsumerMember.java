package io.varve.coordinator.group.consumer;

import io.varve.coordinator.group.assignor.Assignments;
import io.varve.coordinator.group.record.ConsumerGroupValue;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;

/** A member of a consumer group: what it subscribes to and what it owns. Mutable, on the shard thread. */
public final class ConsumerMember {
    final String memberId;
    String instanceId;
    String rackId;
    String clientId = "";
    String clientHost = "";
    int rebalanceTimeoutMs;
    List<String> subscribedTopicNames = List.of();
    String subscribedTopicRegex;
    String serverAssignor;
    int memberEpoch;
    int previousMemberEpoch;
    MemberState state = MemberState.STABLE;
    Map<Uuid, Set<Integer>> assigned = Assignments.mutable();
    Map<Uuid, Set<Integer>> pendingRevocation = Assignments.mutable();
    /** Set while the member speaks the classic protocol (online migration); null for a consumer member. */
    ClassicMetadata classic;

    ConsumerMember(String memberId) {
        this.memberId = memberId;
    }

    public String memberId() {
        return memberId;
    }

    public String instanceId() {
        return instanceId;
    }

    public int memberEpoch() {
        return memberEpoch;
    }

    public MemberState state() {
        return state;
    }

    public Map<Uuid, Set<Integer>> assigned() {
        return assigned;
    }

    public Map<Uuid, Set<Integer>> pendingRevocation() {
        return pendingRevocation;
    }

    public List<String> subscribedTopicNames() {
        return subscribedTopicNames;
    }

    public String subscribedTopicRegex() {
        return subscribedTopicRegex;
    }

    public boolean usesClassicProtocol() {
        return classic != null;
    }

    public ClassicMetadata classic() {
        return classic;
    }

    /** The same member under a new id: a static member whose restarted instance takes its place. */
    ConsumerMember copyAs(String newMemberId) {
        ConsumerMember m = new ConsumerMember(newMemberId);
        m.instanceId = instanceId;
        m.rackId = rackId;
        m.clientId = clientId;
        m.clientHost = clientHost;
        m.rebalanceTimeoutMs = rebalanceTimeoutMs;
        m.subscribedTopicNames = subscribedTopicNames;
        m.subscribedTopicRegex = subscribedTopicRegex;
        m.serverAssignor = serverAssignor;
        m.state = state;
        m.assigned = Assignments.copy(assigned);
        m.pendingRevocation = Assignments.copy(pendingRevocation);
        m.classic = classic;
        return m;
    }

    ConsumerGroupValue.Member toValue() {
        return new ConsumerGroupValue.Member(
                memberId,
                instanceId,
                rackId,
                clientId,
                clientHost,
                rebalanceTimeoutMs,
                subscribedTopicNames,
                subscribedTopicRegex,
                serverAssignor,
                memberEpoch,
                previousMemberEpoch,
                (byte) state.ordinal(),
                assigned,
                pendingRevocation,
                classic == null ? null : classic.toValue());
    }

    static ConsumerMember fromValue(ConsumerGroupValue.Member v) {
        ConsumerMember m = new ConsumerMember(v.memberId());
        m.instanceId = v.instanceId();
        m.rackId = v.rackId();
        m.clientId = v.clientId();
        m.clientHost = v.clientHost();
        m.rebalanceTimeoutMs = v.rebalanceTimeoutMs();
        m.subscribedTopicNames = List.copyOf(v.subscribedTopicNames());
        m.subscribedTopicRegex = v.subscribedTopicRegex();
        m.serverAssignor = v.serverAssignor();
        m.memberEpoch = v.memberEpoch();
        m.previousMemberEpoch = v.previousMemberEpoch();
        m.state = MemberState.fromOrdinal(v.state());
        m.assigned = Assignments.copy(v.assigned());
        m.pendingRevocation = Assignments.copy(v.pendingRevocation());
        m.classic = ClassicMetadata.fromValue(v.classic());
        return m;
    }
}

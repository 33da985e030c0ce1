package io.varve.coordinator.group.streams;

import io.varve.coordinator.group.record.StreamsGroupValue;
import java.util.Map;
import java.util.Set;

/** A member of a streams group (one stream thread's consumer): its process, endpoint and tasks. */
public final class StreamsMember {
    final String memberId;
    String instanceId;
    String rackId;
    String clientId = "";
    String clientHost = "";
    int rebalanceTimeoutMs;
    int topologyEpoch;
    String processId = "";
    StreamsGroupValue.Endpoint userEndpoint;
    Map<String, String> clientTags = Map.of();
    int memberEpoch;
    int previousMemberEpoch;
    StreamsMemberState state = StreamsMemberState.STABLE;
    TasksTuple assigned = TasksTuple.EMPTY;
    /** Active tasks the member must give up before it moves to the target epoch. */
    Map<String, Set<Integer>> activePendingRevocation = Map.of();

    StreamsMember(String memberId) {
        this.memberId = memberId;
    }

    public String memberId() {
        return memberId;
    }

    public String processId() {
        return processId;
    }

    public int memberEpoch() {
        return memberEpoch;
    }

    public StreamsMemberState state() {
        return state;
    }

    public TasksTuple assigned() {
        return assigned;
    }

    public Map<String, Set<Integer>> activePendingRevocation() {
        return activePendingRevocation;
    }

    /** The same member under a new id: a static member whose restarted instance takes its place. */
    StreamsMember copyAs(String newMemberId) {
        StreamsMember m = this;
        StreamsMember copy = new StreamsMember(newMemberId);
        copy.instanceId = m.instanceId;
        copy.rackId = m.rackId;
        copy.clientId = m.clientId;
        copy.clientHost = m.clientHost;
        copy.rebalanceTimeoutMs = m.rebalanceTimeoutMs;
        copy.topologyEpoch = m.topologyEpoch;
        copy.processId = m.processId;
        copy.userEndpoint = m.userEndpoint;
        copy.clientTags = m.clientTags;
        copy.state = m.state;
        copy.assigned = m.assigned;
        copy.activePendingRevocation = m.activePendingRevocation;
        return copy;
    }

    StreamsGroupValue.Member toValue() {
        return new StreamsGroupValue.Member(
                memberId,
                instanceId,
                rackId,
                clientId,
                clientHost,
                rebalanceTimeoutMs,
                topologyEpoch,
                processId,
                userEndpoint,
                clientTags,
                memberEpoch,
                previousMemberEpoch,
                (byte) state.ordinal(),
                assigned.toValue(),
                activePendingRevocation);
    }

    static StreamsMember fromValue(StreamsGroupValue.Member v) {
        StreamsMember m = new StreamsMember(v.memberId());
        m.instanceId = v.instanceId();
        m.rackId = v.rackId();
        m.clientId = v.clientId();
        m.clientHost = v.clientHost();
        m.rebalanceTimeoutMs = v.rebalanceTimeoutMs();
        m.topologyEpoch = v.topologyEpoch();
        m.processId = v.processId();
        m.userEndpoint = v.userEndpoint();
        m.clientTags = Map.copyOf(v.clientTags());
        m.memberEpoch = v.memberEpoch();
        m.previousMemberEpoch = v.previousMemberEpoch();
        m.state = StreamsMemberState.fromOrdinal(v.state());
        m.assigned = TasksTuple.fromValue(v.assigned());
        m.activePendingRevocation = TaskIds.immutable(v.activePendingRevocation());
        return m;
    }
}

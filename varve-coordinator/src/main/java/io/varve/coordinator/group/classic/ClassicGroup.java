package io.varve.coordinator.group.classic;

import io.varve.coordinator.group.Group;
import io.varve.coordinator.group.GroupType;
import io.varve.coordinator.group.record.ClassicGroupValue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The state of one classic group: members (in join order), static instance ids, the generation, the selected
 * protocol and leader, members still to confirm their KIP-394 member id and members still to sync.
 */
public final class ClassicGroup implements Group {
    private final String groupId;
    ClassicGroupState state = ClassicGroupState.EMPTY;
    long stateTimestampMs;
    String protocolType;
    String protocolName;
    String leaderId;
    int generationId;
    final LinkedHashMap<String, ClassicMember> members = new LinkedHashMap<>();
    final Map<String, String> staticMembers = new HashMap<>();
    /** Member ids handed out with MEMBER_ID_REQUIRED that have not joined with them yet. */
    final Set<String> pendingMembers = new LinkedHashSet<>();
    /** Members of the current generation that have not sent SyncGroup yet. */
    final Set<String> pendingSyncMembers = new LinkedHashSet<>();
    /** Initial rebalance delay: a member joined since the last delay, and the rebalance time left to extend into. */
    boolean newMemberAdded;

    boolean inInitialDelay;
    int initialDelayRemainingMs;
    /** Read back from a downgrade's record: the rebalance it started is started again once loaded. */
    boolean rebalanceOnLoad;

    ClassicGroup(String groupId, long nowMs) {
        this.groupId = groupId;
        this.stateTimestampMs = nowMs;
    }

    @Override
    public String groupId() {
        return groupId;
    }

    @Override
    public GroupType type() {
        return GroupType.CLASSIC;
    }

    @Override
    public String stateName() {
        return state.displayName();
    }

    @Override
    public boolean hasNoMembers() {
        return members.isEmpty();
    }

    @Override
    public String protocolType() {
        return protocolType == null ? "" : protocolType;
    }

    public ClassicGroupState state() {
        return state;
    }

    public int generationId() {
        return generationId;
    }

    public String protocolName() {
        return protocolName;
    }

    public String leaderId() {
        return leaderId;
    }

    public long stateTimestampMs() {
        return stateTimestampMs;
    }

    public Collection<ClassicMember> members() {
        return members.values();
    }

    public ClassicMember member(String memberId) {
        return members.get(memberId);
    }

    public String staticMemberId(String groupInstanceId) {
        return groupInstanceId == null ? null : staticMembers.get(groupInstanceId);
    }

    boolean isLeader(String memberId) {
        return memberId.equals(leaderId);
    }

    /** Members plus ids promised with MEMBER_ID_REQUIRED: what group.max.size counts. */
    int size() {
        return members.size() + pendingMembers.size();
    }

    void transitionTo(ClassicGroupState next, long nowMs) {
        state = next;
        stateTimestampMs = nowMs;
    }

    void add(ClassicMember member) {
        if (members.isEmpty() && protocolType == null) {
            protocolType = member.protocolType;
        }
        members.put(member.memberId, member);
        if (member.groupInstanceId != null) {
            staticMembers.put(member.groupInstanceId, member.memberId);
        }
        if (leaderId == null) {
            leaderId = member.memberId;
        }
    }

    void remove(String memberId) {
        ClassicMember m = members.remove(memberId);
        if (m == null) {
            return;
        }
        if (m.groupInstanceId != null && memberId.equals(staticMembers.get(m.groupInstanceId))) {
            staticMembers.remove(m.groupInstanceId);
        }
        pendingSyncMembers.remove(memberId);
        if (memberId.equals(leaderId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
    }

    boolean hasAllMembersJoined() {
        return pendingMembers.isEmpty() && members.values().stream().allMatch(ClassicMember::isAwaitingJoin);
    }

    /** Protocols every member supports, in the order of the first member's preference. */
    List<String> candidateProtocols() {
        List<String> candidates = new ArrayList<>();
        boolean first = true;
        for (ClassicMember m : members.values()) {
            List<String> names = m.protocols.stream().map(ClassicProtocol::name).toList();
            if (first) {
                candidates.addAll(names);
                first = false;
            } else {
                candidates.retainAll(names);
            }
        }
        return candidates;
    }

    /** Whether a member with this protocol type and these protocols can join (INCONSISTENT_GROUP_PROTOCOL otherwise). */
    boolean supportsProtocols(String memberProtocolType, List<ClassicProtocol> protocols) {
        if (members.isEmpty()) {
            return memberProtocolType != null && !memberProtocolType.isEmpty() && !protocols.isEmpty();
        }
        if (!memberProtocolType.equals(protocolType)) {
            return false;
        }
        List<String> candidates = candidateProtocols();
        return protocols.stream().anyMatch(p -> candidates.contains(p.name()));
    }

    /** Each member votes for its most preferred protocol among those all support; the most votes wins. */
    String selectProtocol() {
        List<String> candidates = candidateProtocols();
        if (candidates.isEmpty()) {
            throw new IllegalStateException("group " + groupId + " has no protocol all members support");
        }
        Map<String, Integer> votes = new HashMap<>();
        for (ClassicMember m : members.values()) {
            for (ClassicProtocol p : m.protocols) {
                if (candidates.contains(p.name())) {
                    votes.merge(p.name(), 1, Integer::sum);
                    break;
                }
            }
        }
        String best = candidates.get(0);
        for (String c : candidates) {
            if (votes.getOrDefault(c, 0) > votes.getOrDefault(best, 0)) {
                best = c;
            }
        }
        return best;
    }

    int maxRebalanceTimeoutMs() {
        int max = 0;
        for (ClassicMember m : members.values()) {
            max = Math.max(max, m.rebalanceTimeoutMs);
        }
        return max;
    }

    List<ClassicApi.JoinedMember> joinedMembers() {
        List<ClassicApi.JoinedMember> out = new ArrayList<>();
        for (ClassicMember m : members.values()) {
            out.add(new ClassicApi.JoinedMember(m.memberId, m.groupInstanceId, m.metadata(protocolName)));
        }
        return out;
    }

    ClassicGroupValue toValue() {
        List<ClassicGroupValue.Member> ms = new ArrayList<>();
        for (ClassicMember m : members.values()) {
            ms.add(new ClassicGroupValue.Member(
                    m.memberId,
                    m.groupInstanceId,
                    m.clientId,
                    m.clientHost,
                    m.rebalanceTimeoutMs,
                    m.sessionTimeoutMs,
                    m.metadata(protocolName),
                    m.assignment));
        }
        return new ClassicGroupValue(protocolType, generationId, protocolName, leaderId, stateTimestampMs, ms);
    }

    /** A group as its record left it: stable with its members, or empty. Members' sessions start on load. */
    static ClassicGroup fromValue(String groupId, ClassicGroupValue v) {
        ClassicGroup g = new ClassicGroup(groupId, v.stateTimestampMs());
        g.protocolType = v.protocolType();
        g.generationId = v.generationId();
        g.protocolName = v.protocolName();
        for (ClassicGroupValue.Member m : v.members()) {
            List<ClassicProtocol> protocols = v.protocolName() == null || m.subscription() == null
                    ? List.of()
                    : List.of(new ClassicProtocol(v.protocolName(), m.subscription()));
            ClassicMember member = new ClassicMember(
                    m.memberId(),
                    m.groupInstanceId(),
                    m.clientId(),
                    m.clientHost(),
                    m.rebalanceTimeoutMs(),
                    m.sessionTimeoutMs(),
                    v.protocolType(),
                    protocols);
            member.assignment = m.assignment() == null ? new byte[0] : m.assignment();
            g.add(member);
        }
        g.leaderId = v.leaderId() != null && g.members.containsKey(v.leaderId())
                ? v.leaderId()
                : g.members.isEmpty() ? null : g.members.keySet().iterator().next();
        g.state = g.members.isEmpty() ? ClassicGroupState.EMPTY : ClassicGroupState.STABLE;
        g.rebalanceOnLoad = v.rebalanceOnLoad() && !g.members.isEmpty();
        return g;
    }
}

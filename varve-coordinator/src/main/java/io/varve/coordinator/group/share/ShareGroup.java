package io.varve.coordinator.group.share;

import io.varve.coordinator.group.Group;
import io.varve.coordinator.group.GroupType;
import io.varve.coordinator.group.TopicsSnapshot;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/** The state of one share group: its epoch, its members and what each is assigned. */
public final class ShareGroup implements Group {
    /** One member: the client brings its own id (ShareGroupHeartbeat v1). */
    static final class Member {
        final String memberId;
        int memberEpoch;
        String rackId;
        String clientId;
        String clientHost;
        List<String> subscribedTopicNames = List.of();
        Map<Uuid, Set<Integer>> assignment = new HashMap<>();

        Member(String memberId) {
            this.memberId = memberId;
        }
    }

    private final String groupId;
    int groupEpoch;
    /** The topics the assignment was computed from: a change of topics reassigns. */
    TopicsSnapshot topics = TopicsSnapshot.EMPTY;

    final TreeMap<String, Member> members = new TreeMap<>();
    /** The assignment of the group epoch: member id to its partitions. */
    Map<String, Map<Uuid, Set<Integer>>> target = new HashMap<>();

    ShareGroup(String groupId) {
        this.groupId = groupId;
    }

    @Override
    public String groupId() {
        return groupId;
    }

    @Override
    public GroupType type() {
        return GroupType.SHARE;
    }

    /** Empty or Stable: assignments apply at once, so a share group is never reconciling. */
    @Override
    public String stateName() {
        return members.isEmpty() ? "Empty" : "Stable";
    }

    @Override
    public boolean hasNoMembers() {
        return members.isEmpty();
    }

    @Override
    public String protocolType() {
        return "share";
    }

    public int groupEpoch() {
        return groupEpoch;
    }

    public int memberCount() {
        return members.size();
    }

    /** The partitions assigned to {@code memberId}, or null when it is not a member. */
    public Map<Uuid, Set<Integer>> assignmentOf(String memberId) {
        Member m = members.get(memberId);
        return m == null ? null : m.assignment;
    }

    /** Whether {@code memberId} is a member (ShareFetch's check). */
    public boolean hasMember(String memberId) {
        return members.containsKey(memberId);
    }
}

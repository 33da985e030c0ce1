package io.varve.coordinator.group.record;

import java.util.List;

/**
 * A classic group as of its last completed rebalance: written when the leader's assignment is stored, when
 * the group becomes empty and when a static member is replaced; and when a consumer group becomes a classic
 * group (online downgrade), which rebalances at once.
 *
 * @param stateTimestampMs when the group entered its current state (the base of offset expiry for an empty group)
 * @param rebalanceOnLoad  the group was rebalancing when written (a downgrade): a coordinator that loads it starts
 *                         the rebalance again, so the members' partitions are assigned afresh
 */
public record ClassicGroupValue(
        String protocolType,
        int generationId,
        String protocolName,
        String leaderId,
        long stateTimestampMs,
        List<Member> members,
        boolean rebalanceOnLoad) {

    public ClassicGroupValue {
        members = List.copyOf(members);
    }

    public ClassicGroupValue(
            String protocolType,
            int generationId,
            String protocolName,
            String leaderId,
            long stateTimestampMs,
            List<Member> members) {
        this(protocolType, generationId, protocolName, leaderId, stateTimestampMs, members, false);
    }

    /** {@code subscription} is the member's metadata for the selected protocol. */
    public record Member(
            String memberId,
            String groupInstanceId,
            String clientId,
            String clientHost,
            int rebalanceTimeoutMs,
            int sessionTimeoutMs,
            byte[] subscription,
            byte[] assignment) {}
}

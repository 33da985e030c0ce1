package io.varve.coordinator.group;

/** What every group offers the shard's shared code (listing, deletion, offsets). */
public interface Group {
    String groupId();

    GroupType type();

    /** Kafka's state name, for ListGroups and DescribeGroups. */
    String stateName();

    /** True when the group has no members (it may still have committed offsets). */
    boolean hasNoMembers();

    /** The protocol type ListGroups reports: the classic group's own, "consumer" for KIP-848 groups. */
    String protocolType();
}

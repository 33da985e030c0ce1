package io.varve.coordinator.group;

/**
 * Where the coordinator reads a group's own settings: called on the shard's thread whenever a setting is used (a
 * heartbeat, a session timer), so a change made with {@code kafka-configs} applies from the group's next heartbeat.
 * Must be cheap and must not block.
 */
@FunctionalInterface
public interface GroupConfigLookup {
    GroupConfigLookup NONE = groupId -> GroupOverrides.NONE;

    GroupOverrides forGroup(String groupId);
}

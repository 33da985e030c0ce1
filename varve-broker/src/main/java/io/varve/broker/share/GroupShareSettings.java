package io.varve.broker.share;

import io.varve.broker.group.GroupCoordinatorRuntime;
import io.varve.coordinator.group.GroupOverrides;
import java.time.Duration;
import java.util.Locale;

/**
 * A share group's own {@code share.auto.offset.reset} and {@code share.record.lock.duration.ms} (group configs), read
 * through the group coordinator's lookup each time a share-partition starts or records are acquired.
 */
final class GroupShareSettings implements SharePartitions.ResetPolicy {
    private static final String BY_DURATION = "by_duration:";

    private final GroupCoordinatorRuntime groups;

    GroupShareSettings(GroupCoordinatorRuntime groups) {
        this.groups = groups;
    }

    private String reset(String groupId) {
        String value = groups.groupConfigs().forGroup(groupId).shareAutoOffsetReset();
        return value == null ? "latest" : value.trim();
    }

    @Override
    public boolean earliest(String groupId) {
        return reset(groupId).equalsIgnoreCase("earliest");
    }

    @Override
    public Duration byDuration(String groupId) {
        String value = reset(groupId);
        if (!value.toLowerCase(Locale.ROOT).startsWith(BY_DURATION)) {
            return null;
        }
        // validated by the controller when it was set
        return Duration.parse(value.substring(BY_DURATION.length()).trim());
    }

    @Override
    public int lockDurationMs(String groupId, int brokerWideMs) {
        return GroupOverrides.or(groups.groupConfigs().forGroup(groupId).shareRecordLockDurationMs(), brokerWideMs);
    }
}

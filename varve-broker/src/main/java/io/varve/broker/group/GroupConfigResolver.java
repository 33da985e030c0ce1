package io.varve.broker.group;

import io.varve.broker.config.BrokerConfig;
import io.varve.coordinator.group.GroupConfigLookup;
import io.varve.coordinator.group.GroupOverrides;
import io.varve.metadata.config.GroupConfigBounds;
import io.varve.metadata.config.GroupConfigDef;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.image.MetadataImage;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A group's own settings as the coordinators use them: read from the metadata image's GROUP config records, and each
 * value capped to this node's broker-wide bounds (as Kafka 4.4 does, KIP-1240): the controller refused values outside
 * its bounds when they were set, but this node's bounds may be narrower, or have been narrowed since. The raw stored
 * value is never changed. Parsed once per change of a group's configs; safe from any thread.
 */
public final class GroupConfigResolver implements GroupConfigLookup {
    private static final Logger log = LoggerFactory.getLogger(GroupConfigResolver.class);

    private record Resolved(Map<String, String> raw, GroupOverrides overrides) {}

    private final Supplier<MetadataImage> images;
    private final GroupConfigBounds bounds;
    /** Only groups that have configs; bounded by them. */
    private final Map<String, Resolved> cache = new ConcurrentHashMap<>();

    public GroupConfigResolver(Supplier<MetadataImage> images, GroupConfigBounds bounds) {
        this.images = images;
        this.bounds = bounds;
    }

    /** This node's {@code group.*} bounds, and its broker-wide session timeouts and heartbeat intervals. */
    public static GroupConfigBounds bounds(BrokerConfig c) {
        return GroupConfigBounds.builder()
                .sessionPair(
                        GroupConfigDef.CONSUMER_SESSION_TIMEOUT_MS,
                        c.groupInt("group.consumer.min.session.timeout.ms"),
                        c.groupInt("group.consumer.max.session.timeout.ms"),
                        c.groupInt("group.consumer.session.timeout.ms"))
                .heartbeatPair(
                        GroupConfigDef.CONSUMER_HEARTBEAT_INTERVAL_MS,
                        c.groupInt("group.consumer.min.heartbeat.interval.ms"),
                        c.groupInt("group.consumer.max.heartbeat.interval.ms"),
                        c.groupInt("group.consumer.heartbeat.interval.ms"))
                .sessionPair(
                        GroupConfigDef.SHARE_SESSION_TIMEOUT_MS,
                        c.groupInt("group.share.min.session.timeout.ms"),
                        c.groupInt("group.share.max.session.timeout.ms"),
                        c.groupInt("group.share.session.timeout.ms"))
                .heartbeatPair(
                        GroupConfigDef.SHARE_HEARTBEAT_INTERVAL_MS,
                        c.groupInt("group.share.min.heartbeat.interval.ms"),
                        c.groupInt("group.share.max.heartbeat.interval.ms"),
                        c.groupInt("group.share.heartbeat.interval.ms"))
                .sessionPair(
                        GroupConfigDef.STREAMS_SESSION_TIMEOUT_MS,
                        c.groupInt("group.streams.min.session.timeout.ms"),
                        c.groupInt("group.streams.max.session.timeout.ms"),
                        c.groupInt("group.streams.session.timeout.ms"))
                .heartbeatPair(
                        GroupConfigDef.STREAMS_HEARTBEAT_INTERVAL_MS,
                        c.groupInt("group.streams.min.heartbeat.interval.ms"),
                        c.groupInt("group.streams.max.heartbeat.interval.ms"),
                        c.groupInt("group.streams.heartbeat.interval.ms"))
                .bound(
                        GroupConfigDef.SHARE_RECORD_LOCK_DURATION_MS,
                        c.groupInt("group.share.min.record.lock.duration.ms"),
                        c.groupInt("group.share.max.record.lock.duration.ms"))
                .bound(
                        GroupConfigDef.STREAMS_NUM_STANDBY_REPLICAS,
                        Integer.MIN_VALUE,
                        c.groupInt("group.streams.max.standby.replicas"))
                .build();
    }

    @Override
    public GroupOverrides forGroup(String groupId) {
        Map<String, String> raw = images.get().configs().configs(ConfigResource.group(groupId));
        if (raw.isEmpty()) {
            cache.remove(groupId);
            return GroupOverrides.NONE;
        }
        Resolved cached = cache.get(groupId);
        if (cached != null && cached.raw().equals(raw)) {
            return cached.overrides();
        }
        GroupOverrides overrides = resolve(groupId, raw);
        cache.put(groupId, new Resolved(raw, overrides));
        return overrides;
    }

    private GroupOverrides resolve(String groupId, Map<String, String> raw) {
        return new GroupOverrides(
                capped(groupId, raw, GroupConfigDef.CONSUMER_SESSION_TIMEOUT_MS),
                capped(groupId, raw, GroupConfigDef.CONSUMER_HEARTBEAT_INTERVAL_MS),
                capped(groupId, raw, GroupConfigDef.SHARE_SESSION_TIMEOUT_MS),
                capped(groupId, raw, GroupConfigDef.SHARE_HEARTBEAT_INTERVAL_MS),
                capped(groupId, raw, GroupConfigDef.SHARE_RECORD_LOCK_DURATION_MS),
                raw.get(GroupConfigDef.SHARE_AUTO_OFFSET_RESET),
                capped(groupId, raw, GroupConfigDef.STREAMS_SESSION_TIMEOUT_MS),
                capped(groupId, raw, GroupConfigDef.STREAMS_HEARTBEAT_INTERVAL_MS),
                capped(groupId, raw, GroupConfigDef.STREAMS_NUM_STANDBY_REPLICAS));
    }

    /** The group's value of an INT key within this node's bounds; null if not set (or unreadable, which it cannot be). */
    private Integer capped(String groupId, Map<String, String> raw, String key) {
        String text = raw.get(key);
        if (text == null) {
            return null;
        }
        int value;
        try {
            value = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            log.warn("Group {} has an unreadable {}={}: the broker-wide value applies", groupId, key, text);
            return null;
        }
        GroupConfigBounds.Bound bound = bounds.bound(key);
        if (bound == null || bound.contains(value)) {
            return value;
        }
        int effective = bound.clamp(value);
        log.warn(
                "The group config {} of group {} is {}, outside this broker's bounds ({}): it takes effect as {}",
                key,
                groupId,
                value,
                bound,
                effective);
        return effective;
    }
}

/**
 * Committed offsets: OffsetCommit, OffsetFetch, OffsetDelete and expiry ({@code offsets.retention.minutes}).
 * What a commit must prove and which offsets a group still protects depend on the group's protocol; the
 * shard supplies that through {@link io.varve.coordinator.group.offset.OffsetManager.GroupRules}.
 */
package io.varve.coordinator.group.offset;

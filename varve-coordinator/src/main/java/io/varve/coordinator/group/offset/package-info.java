/**
 * Committed offsets: OffsetCommit, OffsetFetch, OffsetDelete and expiry ({@code offsets.retention.minutes}), and
 * transactional offsets (TxnOffsetCommit), pending per producer until the transaction's marker commits or drops
 * them; OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT while one is pending.
 * What a commit must prove and which offsets a group still protects depend on the group's protocol; the
 * shard supplies that through {@link io.varve.coordinator.group.offset.OffsetManager.GroupRules}.
 */
package io.varve.coordinator.group.offset;

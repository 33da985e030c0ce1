package io.varve.coordinator.group.record;

/**
 * A committed offset as stored.
 *
 * @param leaderEpoch       -1 when the client sent none
 * @param expireTimestampMs -1 unless an old client (OffsetCommit v2-4) asked for its own retention
 */
public record OffsetValue(
        long offset, int leaderEpoch, String metadata, long commitTimestampMs, long expireTimestampMs) {}

package io.varve.storage;

/** The answer of a ListOffsets lookup by time: a record timestamp, its offset and the leader epoch that wrote it. */
public record TimestampAndOffset(long timestamp, long offset, int leaderEpoch) {}

package io.varve.storage;

/**
 * Effective per-partition log configuration. Field names carry units; the Kafka topic-level key is
 * given for each. Invariants are checked on construction so a bad value fails where it is set.
 *
 * @param segmentBytes       {@code segment.bytes}: roll the active segment before it would exceed this size
 * @param indexIntervalBytes {@code index.interval.bytes}: bytes appended between two offset-index entries
 * @param maxIndexSizeBytes  {@code segment.index.bytes}: largest offset index; a full index rolls the segment
 * @param maxMessageBytes    {@code max.message.bytes}: largest record batch accepted
 * @param logAppendTime      {@code message.timestamp.type == LogAppendTime}
 * @param flushMessages      {@code flush.messages}: fsync after this many unflushed offsets
 * @param flushMs            {@code flush.ms}: fsync when the last flush is this old at append time
 */
public record LogConfig(
    long segmentBytes,
    int indexIntervalBytes,
    int maxIndexSizeBytes,
    int maxMessageBytes,
    boolean logAppendTime,
    long flushMessages,
    long flushMs) {

  public static final long DEFAULT_SEGMENT_BYTES = 1024L * 1024 * 1024;
  public static final int DEFAULT_INDEX_INTERVAL_BYTES = 4096;
  public static final int DEFAULT_MAX_INDEX_SIZE_BYTES = 10 * 1024 * 1024;
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 + 12;

  public LogConfig {
    // File positions are int32 in the offset index, so a segment may not outgrow Integer.MAX_VALUE.
    if (segmentBytes <= 0 || segmentBytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("segmentBytes must be in [1, " + Integer.MAX_VALUE + "]: " + segmentBytes);
    }
    if (indexIntervalBytes < 0) {
      throw new IllegalArgumentException("indexIntervalBytes must be >= 0: " + indexIntervalBytes);
    }
    if (maxIndexSizeBytes < 8) {
      throw new IllegalArgumentException("maxIndexSizeBytes must hold at least one 8-byte entry: " + maxIndexSizeBytes);
    }
    if (maxMessageBytes < 0) {
      throw new IllegalArgumentException("maxMessageBytes must be >= 0: " + maxMessageBytes);
    }
    if (flushMessages < 1) {
      throw new IllegalArgumentException("flushMessages must be >= 1: " + flushMessages);
    }
    if (flushMs < 0) {
      throw new IllegalArgumentException("flushMs must be >= 0: " + flushMs);
    }
  }

  public static LogConfig defaults() {
    return new LogConfig(DEFAULT_SEGMENT_BYTES, DEFAULT_INDEX_INTERVAL_BYTES, DEFAULT_MAX_INDEX_SIZE_BYTES,
        DEFAULT_MAX_MESSAGE_BYTES, false, Long.MAX_VALUE, Long.MAX_VALUE);
  }

  public LogConfig withSegmentBytes(long v) {
    return new LogConfig(v, indexIntervalBytes, maxIndexSizeBytes, maxMessageBytes, logAppendTime, flushMessages, flushMs);
  }

  public LogConfig withIndexIntervalBytes(int v) {
    return new LogConfig(segmentBytes, v, maxIndexSizeBytes, maxMessageBytes, logAppendTime, flushMessages, flushMs);
  }

  public LogConfig withMaxIndexSizeBytes(int v) {
    return new LogConfig(segmentBytes, indexIntervalBytes, v, maxMessageBytes, logAppendTime, flushMessages, flushMs);
  }

  public LogConfig withMaxMessageBytes(int v) {
    return new LogConfig(segmentBytes, indexIntervalBytes, maxIndexSizeBytes, v, logAppendTime, flushMessages, flushMs);
  }

  public LogConfig withLogAppendTime(boolean v) {
    return new LogConfig(segmentBytes, indexIntervalBytes, maxIndexSizeBytes, maxMessageBytes, v, flushMessages, flushMs);
  }

  public LogConfig withFlushMessages(long v) {
    return new LogConfig(segmentBytes, indexIntervalBytes, maxIndexSizeBytes, maxMessageBytes, logAppendTime, v, flushMs);
  }

  public LogConfig withFlushMs(long v) {
    return new LogConfig(segmentBytes, indexIntervalBytes, maxIndexSizeBytes, maxMessageBytes, logAppendTime, flushMessages, v);
  }
}

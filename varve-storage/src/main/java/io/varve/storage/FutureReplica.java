package io.varve.storage;

import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;

/**
 * A replica being moved into {@code logDir} ({@link LogManager#moveReplica}), as DescribeLogDirs shows it: its size so
 * far and how many offsets it is behind the log that still serves the partition.
 */
public record FutureReplica(TopicPartition topicPartition, Path logDir, long sizeBytes, long offsetLag) {}

/**
 * Small text files kept beside the segments, their formats and their atomic replacement: per partition
 * {@code partition.metadata} (topic id) and {@code leader-epoch-checkpoint} (epoch start offsets); per
 * log dir the offset checkpoints {@code recovery-point-offset-checkpoint},
 * {@code log-start-offset-checkpoint} and {@code cleaner-offset-checkpoint} (Kafka's text format).
 */
package io.varve.storage.checkpoint;

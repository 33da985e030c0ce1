/**
 * Small text files kept beside a partition's segments, their formats and their atomic replacement:
 * {@code partition.metadata} (topic id) and {@code leader-epoch-checkpoint} (epoch start offsets).
 * Later checkpoints (log start offset, recovery point, producer snapshots' index) belong here too.
 */
package io.varve.storage.checkpoint;

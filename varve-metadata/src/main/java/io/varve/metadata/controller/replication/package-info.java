/**
 * Partition leadership and ISR decisions of the controller: moving leaders off brokers that are
 * fenced, shutting down or unregistered; electing leaders for offline partitions when a broker
 * returns; and validating AlterPartition ISR changes against partition and leader epochs. Pure:
 * images in, {@link io.varve.metadata.record.PartitionChangeRecord}s and replies out. Does not decide
 * broker lifecycle (the {@code cluster} package does) nor place new replicas.
 */
package io.varve.metadata.controller.replication;

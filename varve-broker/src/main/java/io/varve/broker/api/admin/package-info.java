/**
 * Kafka's admin APIs beyond topic creation and deletion: DescribeConfigs, IncrementalAlterConfigs,
 * AlterConfigs, CreatePartitions, DescribeLogDirs, AlterReplicaLogDirs (the move itself is the log manager's) and
 * DeleteRecords. Config and partition changes go
 * through the controller (and the metadata log); reads come from the metadata image, the broker's
 * static config and the local logs. Handlers only translate between the wire and those layers.
 */
package io.varve.broker.api.admin;

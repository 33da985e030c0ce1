/**
 * The controller: validates admin and broker requests against the metadata image and turns them
 * into records. Decisions are pure ({@link io.varve.metadata.controller.TopicControl},
 * {@link io.varve.metadata.controller.ConfigControl},
 * {@link io.varve.metadata.controller.ProducerIdControl}, {@link io.varve.metadata.controller.ReplicaPlacer},
 * and the sub-packages {@code cluster} (broker lifecycle and heartbeats), {@code replication}
 * (leaders, ISRs, AlterPartition) and {@code feature} (UpdateFeatures));
 * {@link io.varve.metadata.controller.QuorumController} adds the event thread, the session timer,
 * the clock and the Raft appends. Never touches the network or the broker's logs.
 */
package io.varve.metadata.controller;

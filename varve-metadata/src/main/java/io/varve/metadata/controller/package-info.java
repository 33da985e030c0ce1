/**
 * The controller: validates admin requests against the metadata image and turns them into records.
 * Decisions are pure ({@link io.varve.metadata.controller.TopicControl},
 * {@link io.varve.metadata.controller.ConfigControl},
 * {@link io.varve.metadata.controller.ProducerIdControl}, {@link io.varve.metadata.controller.ClusterControl},
 * {@link io.varve.metadata.controller.ReplicaPlacer}); {@link io.varve.metadata.controller.QuorumController}
 * adds the event thread and the Raft appends. Never touches the network or the broker's logs.
 */
package io.varve.metadata.controller;

/**
 * The KIP-1071 streams group protocol (StreamsGroupHeartbeat, StreamsGroupDescribe): the coordinator owns the
 * task assignment of Kafka Streams applications. Members bring the topology; the coordinator resolves it against
 * the cluster's topics ({@link io.varve.coordinator.group.streams.TopologyResolver}: task counts, the internal
 * topics to create, the statuses Kafka reports), assigns active and standby tasks with a sticky assignor, and
 * moves each member to its target one heartbeat at a time: active tasks are revoked before another member gets
 * them. Pure like the rest of the shard: no I/O; internal topics are created by the broker from the answer.
 */
package io.varve.coordinator.group.streams;

/**
 * Replication throttles ({@code leader/follower.replication.throttled.rate} with the topics'
 * {@code leader/follower.replication.throttled.replicas}, as {@code kafka-reassign-partitions --throttle} sets them):
 * {@link io.varve.broker.replica.throttle.ByteRateQuota} is the pure rate math (time passed in),
 * {@link io.varve.broker.replica.throttle.ThrottledReplicas} the pure parsing of the replica lists, and
 * {@link io.varve.broker.replica.throttle.ReplicationThrottles} what the leader's Fetch handler and the replica
 * fetchers ask. Owns no partition state and does no I/O.
 */
package io.varve.broker.replica.throttle;

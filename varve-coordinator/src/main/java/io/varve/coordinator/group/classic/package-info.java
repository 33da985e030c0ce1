/**
 * The classic group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup): client-side assignors, eager and
 * cooperative rebalances, the KIP-394 member id requirement, the initial rebalance delay and static membership
 * (KIP-345). {@link io.varve.coordinator.group.classic.ClassicGroup} is the state,
 * {@link io.varve.coordinator.group.classic.ClassicGroupManager} the transitions.
 */
package io.varve.coordinator.group.classic;

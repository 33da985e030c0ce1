/**
 * The KIP-848 consumer group protocol (ConsumerGroupHeartbeat): the coordinator owns the assignment. A change
 * of membership, subscription or topic metadata bumps the group epoch; the target assignment is recomputed by
 * a server-side assignor; each member converges to its target one heartbeat at a time, first revoking what it
 * must give up (keeping its epoch), then taking what others have released (at the new epoch).
 */
package io.varve.coordinator.group.consumer;

/**
 * KIP-932 share groups (ShareGroupHeartbeat, ShareGroupDescribe): membership and the server-side assignment of a
 * share group. Unlike a consumer group there is no revocation: several members may hold the same partition at once,
 * because records, not partitions, are handed out one at a time (by the partition leader's share-partition state in
 * {@code io.varve.coordinator.share}). A change of membership, subscription or topic metadata bumps the group epoch
 * and every member gets its new assignment with its next heartbeat. Membership is kept in memory only: after a
 * coordinator move members rejoin (UNKNOWN_MEMBER_ID), as their records' state lives with the partitions.
 */
package io.varve.coordinator.group.share;

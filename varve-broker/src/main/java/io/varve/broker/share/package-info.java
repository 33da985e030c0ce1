/**
 * KIP-932 on the partition leader: ShareFetch and ShareAcknowledge. {@link io.varve.broker.share.ShareSessions} keeps
 * each member's share session (its partitions and epoch); {@link io.varve.broker.share.SharePartitions} keeps the
 * share-partition state ({@link io.varve.coordinator.share.SharePartition}, pure) of every (group, partition) this
 * broker leads and hands it to a {@link io.varve.broker.share.ShareStateStore} after each change. Membership lives in
 * the group coordinator (io.varve.coordinator.group.share); this package does not call it.
 */
package io.varve.broker.share;

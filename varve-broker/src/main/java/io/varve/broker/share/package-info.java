/**
 * KIP-932 on the partition leader: ShareFetch and ShareAcknowledge. {@link io.varve.broker.share.ShareSessions} keeps
 * each member's share session (its partitions and epoch); {@link io.varve.broker.share.SharePartitions} keeps the
 * share-partition state ({@link io.varve.coordinator.share.SharePartition}, pure) of every (group, partition) this
 * broker leads, read from and written to the share coordinator of each key through a {@link
 * io.varve.broker.share.ShareStateStore} ({@link io.varve.broker.share.CoordinatorShareStateStore}: in-process or over
 * the inter-broker listener). Membership lives in the group coordinator (io.varve.coordinator.group.share) and the
 * durable state in the share coordinator (io.varve.broker.share.coordinator); this package calls neither's internals.
 */
package io.varve.broker.share;

/**
 * The share coordinator (KIP-932) on the broker: for every {@code __share_group_state} partition this broker leads,
 * the durable state of the share-partitions whose keys map to it ({@link io.varve.coordinator.share.ShareStateShard},
 * pure), loaded from the partition's log on first use and changed only through records appended there; and the
 * brokers' own state APIs InitializeShareGroupState, ReadShareGroupState, WriteShareGroupState,
 * DeleteShareGroupState and ReadShareGroupStateSummary that share-partition leaders call. It does not know share
 * sessions, acquisition locks or the data partitions' logs (io.varve.broker.share has those).
 */
package io.varve.broker.share.coordinator;

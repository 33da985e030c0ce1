/**
 * The partitions this broker hosts and their replication: {@link io.varve.broker.replica.ReplicaManager} applies the
 * metadata image to {@link io.varve.broker.replica.Partition}s (lead, follow, stop hosting), routes appends and
 * reads through them, sends ISR changes to the controller and parks writes waiting for the high watermark ({@link
 * io.varve.broker.replica.ProducePurgatory}) and fetches waiting for data ({@link
 * io.varve.broker.replica.FetchPurgatory}). Pure state lives in {@code state}, the follower fetchers in {@code
 * fetcher}. Owns no wire format (the handlers in {@code io.varve.broker.api} do) and no storage internals.
 */
package io.varve.broker.replica;
